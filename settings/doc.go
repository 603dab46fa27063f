// Package settings owns hangdog's configuration: the watchdog keys and
// tasks.keepDays, their defaults, help and allowed values, the layers they come from (built-in
// defaults, user file, project file, environment, flags), validation that
// names the source of every bad value, and comment-preserving edits of the
// YAML files.
package settings
