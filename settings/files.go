package settings

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ProjectFileName is the per-project config file, looked for in the working
// directory and then in each parent.
const ProjectFileName = ".hangdog.yaml"

// UserFile is the per-user config file: $XDG_CONFIG_HOME/hangdog/config.yaml,
// else ~/.config/hangdog/config.yaml; "" when neither location is known.
func UserFile() string {
	// The XDG spec says a relative XDG_CONFIG_HOME is invalid and must be ignored.
	if x := os.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "hangdog", "config.yaml")
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return ""
	}
	return filepath.Join(home, ".config", "hangdog", "config.yaml")
}

// FindProjectFile returns the .hangdog.yaml in dir or its nearest parent that
// has one.
func FindProjectFile(dir string) (string, bool) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	for {
		p := filepath.Join(dir, ProjectFileName)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// fileValue is one leaf value read from a config file, still as text.
type fileValue struct {
	spec *KeySpec
	text string
}

// readConfigValues reads the settings in a YAML file. A missing file has
// none; with skip nil, a file that is not YAML, has an unknown key or a
// misplaced group is refused with an *Error naming the file. With skip
// non-nil, an entry that is refused (an unknown key, a key given twice, a
// group where a value belongs) is handed to skip and left out, and the rest
// is read. A file that cannot be read or is not a mapping of YAML is an
// error either way.
func readConfigValues(path string, skip func(*Error)) ([]fileValue, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	root, err := parseYAMLRoot(path, data)
	if err != nil || root == nil {
		return nil, err
	}
	var out []fileValue
	refuse := func(e *Error) error {
		if skip == nil {
			return e
		}
		skip(e)
		return nil
	}
	err = walkMapping(path, root, "", "", map[string]string{}, refuse, func(spec *KeySpec, value *yaml.Node) error {
		if value.Kind != yaml.ScalarNode {
			return refuse(&Error{Source: path, Key: spec.Key, Reason: "is a group or a list, not a single value", Allowed: spec.Allowed})
		}
		text := value.Value
		if value.Tag == "!!null" {
			text = ""
		}
		out = append(out, fileValue{spec: spec, text: text})
		return nil
	})
	return out, err
}

// parseYAMLRoot returns the top-level mapping of a config file, or nil for a
// file with no content.
func parseYAMLRoot(path string, data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, &Error{
			Source: path,
			Reason: "is not valid YAML (" + strings.TrimPrefix(err.Error(), "yaml: ") + ")",
			Hint:   "fix the syntax, or move the file away to start again",
		}
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, nil
	}
	root := unalias(doc.Content[0])
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return nil, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, &Error{
			Source: path,
			Reason: "does not hold a mapping of settings",
			Hint:   "the file should start with a line `watchdog:` followed by indented keys such as `  confidence: 0.7`",
		}
	}
	return root, nil
}

// walkMapping visits every known leaf under a mapping node and refuses
// unknown keys, keys given twice (in any case) and values where a group
// belongs. lowerPath and written are the mapping's path, lower-cased and as
// written in the file. A refusal goes to refuse, which ends the walk by
// returning it or skips the entry by returning nil.
func walkMapping(path string, m *yaml.Node, lowerPath, written string, seen map[string]string, refuse func(*Error) error, leaf func(*KeySpec, *yaml.Node) error) error {
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], unalias(m.Content[i+1])
		name := joinKey(written, k.Value)
		lower := joinKey(lowerPath, strings.ToLower(k.Value))
		if first, dup := seen[lower]; dup {
			if err := refuse(&Error{Source: path, Key: printable(name), Reason: "is set twice (also as " + printable(first) + ")", Hint: "keep one of them"}); err != nil {
				return err
			}
			continue
		}
		seen[lower] = name
		if spec, ok := lookupKey(lower); ok && !strings.Contains(k.Value, ".") && strings.ToLower(spec.Key) == lower {
			if err := leaf(spec, v); err != nil {
				return err
			}
			continue
		}
		if isGroup(lower) && !strings.Contains(k.Value, ".") {
			switch {
			case v.Kind == yaml.MappingNode:
				if err := walkMapping(path, v, lower, name, seen, refuse, leaf); err != nil {
					return err
				}
			case v.Kind == yaml.ScalarNode && v.Tag == "!!null":
			default:
				if err := refuse(&Error{
					Source: path, Key: canonicalGroup(lower), Reason: "is a group of settings, not a single value",
					Hint: "put its keys on the lines below it, indented",
				}); err != nil {
					return err
				}
			}
			continue
		}
		err := unknownKey(path, name)
		if spec, ok := lookupKey(lower); ok {
			err.Hint = "it belongs under its group, e.g. " + nestedExample(spec.Key)
		}
		if err := refuse(err); err != nil {
			return err
		}
	}
	return nil
}

// nestedExample shows a dotted key in YAML flow style, which fits one line:
// watchdog.decisionModel.url → watchdog: {decisionModel: {url: ...}}.
func nestedExample(key string) string {
	parts := strings.Split(key, ".")
	out := parts[len(parts)-1] + ": ..."
	for i := len(parts) - 2; i >= 0; i-- {
		out = parts[i] + ": {" + out + "}"
	}
	return out
}

func joinKey(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

func unalias(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}
