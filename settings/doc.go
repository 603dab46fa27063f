// Package settings owns hangdog's configuration: the one table of keys
// (keys.go: the watchdog, tasks, watchers and serve groups, each key's
// default, allowed values, help and whether a project file may set it),
// the layers a value comes from (built-in defaults, user file, project
// file, environment, flags), validation that names the source of every bad
// value, and comment-preserving edits of the YAML files. Help texts, tool
// descriptions and the generated reference read defaults from the table
// (DefaultText), so none repeats a number it holds.
package settings
