package settings

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/hangdog/hangdog/internal/safefile"
)

// SetInFile validates one value and writes it into a YAML config file,
// keeping the file's comments, key order and any keys hangdog does not know.
// The file (and its directory) is created private to the user if missing and
// replaced atomically, so a bad value or a failed write leaves it untouched.
// A project file (.hangdog.yaml) refuses UserOnly keys.
func SetInFile(path, key, value string) error {
	// Errors name the file the value was meant for, as a bad value read
	// from a file does.
	spec, err := specFor(path, key)
	if err != nil {
		return err
	}
	val, err := validateSpec(path, spec, value)
	if err != nil {
		return err
	}
	if spec.UserOnly && filepath.Base(path) == ProjectFileName {
		return userOnlyError(path, spec)
	}
	// Write through a symlink (a dotfiles manager's link) instead of
	// replacing the link with a regular file.
	if resolved, err := filepath.EvalSymlinks(path); err == nil {
		path = resolved
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("resolve %s: %w", path, err)
	}
	return withFileLock(path, func() error { return editFile(path, spec, val) })
}

// editFile is SetInFile's read-modify-write, under the file's lock.
func editFile(path string, spec *KeySpec, val any) error {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read %s: %w", path, err)
	}
	doc, err := editableDocument(path, data)
	if err != nil {
		return err
	}
	if err := setNode(path, doc.Content[0], spec, val); err != nil {
		return err
	}
	var out bytes.Buffer
	if commentsOnly(data) {
		// yaml.v3 drops the comments of a document with no content; keep them
		// by hand, above the new settings.
		out.Write(bytes.TrimRight(data, "\n"))
		out.WriteString("\n")
	}
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	return writeFileAtomic(path, out.Bytes())
}

// commentsOnly reports whether data holds comments (or blank lines) only.
func commentsOnly(data []byte) bool {
	seen := false
	for _, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if line[0] != '#' {
			return false
		}
		seen = true
	}
	return seen
}

// editableDocument parses a config file for editing; an empty or missing
// file becomes a document holding an empty mapping.
func editableDocument(path string, data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, &Error{
			Source: path,
			Reason: "is not valid YAML (" + strings.TrimPrefix(err.Error(), "yaml: ") + ")",
			Hint:   "fix the syntax first; the file was left as it is",
		}
	}
	if doc.Kind != yaml.DocumentNode {
		doc = yaml.Node{Kind: yaml.DocumentNode}
	}
	if len(doc.Content) == 0 {
		doc.Content = []*yaml.Node{{Kind: yaml.MappingNode}}
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		// Keep any comment the null document carried.
		*root = yaml.Node{Kind: yaml.MappingNode, HeadComment: root.HeadComment, FootComment: root.FootComment}
	}
	if root.Kind != yaml.MappingNode {
		return nil, &Error{
			Source: path, Reason: "does not hold a mapping of settings",
			Hint: "fix it by hand first; the file was left as it is",
		}
	}
	return &doc, nil
}

// setNode walks (creating as needed) the mappings on the way to the key and
// replaces its value in place, so comments attached to it survive.
func setNode(path string, root *yaml.Node, spec *KeySpec, val any) error {
	parts := strings.Split(spec.Key, ".")
	m := root
	for depth, part := range parts {
		last := depth == len(parts)-1
		var found *yaml.Node
		for i := 0; i+1 < len(m.Content); i += 2 {
			if !strings.EqualFold(m.Content[i].Value, part) {
				continue
			}
			if found != nil {
				return &Error{
					Source: path, Key: strings.Join(parts[:depth+1], "."), Reason: "is in the file twice",
					Hint: "remove one of them, then try again; the file was left as it is",
				}
			}
			found = m.Content[i+1]
		}
		if found == nil {
			found = &yaml.Node{Kind: yaml.MappingNode}
			key := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: part}
			m.Content = append(m.Content, key, found)
		}
		if last {
			setScalar(found, spec, val)
			return nil
		}
		if found.Kind == yaml.ScalarNode && found.Tag == "!!null" {
			found.Kind, found.Tag, found.Value, found.Style = yaml.MappingNode, "", "", 0
		}
		if found.Kind != yaml.MappingNode {
			return &Error{
				Source: path, Key: strings.Join(parts[:depth+1], "."), Reason: "is a single value where a group of settings belongs",
				Hint: "fix it by hand first; the file was left as it is",
			}
		}
		m = found
	}
	return nil
}

func setScalar(n *yaml.Node, spec *KeySpec, val any) {
	keepQuotes := spec.Kind == KindString || spec.Kind == KindChoice
	style := n.Style & (yaml.DoubleQuotedStyle | yaml.SingleQuotedStyle)
	// The anchor stays: aliases elsewhere in the file still point here.
	n.Kind, n.Content, n.Alias = yaml.ScalarNode, nil, nil
	n.Value = formatValue(val)
	n.Style = 0
	switch spec.Kind {
	case KindBool:
		n.Tag = "!!bool"
	case KindNumber:
		n.Tag = "!!float"
		if _, ok := val.(float64); ok && !strings.ContainsAny(n.Value, ".eE") {
			n.Tag = "!!int" // 3 rather than a quoted "3"
		}
	case KindInt:
		n.Tag = "!!int"
	default:
		n.Tag = "!!str"
		if keepQuotes {
			n.Style = style
		}
	}
}

// writeFileAtomic replaces path with data, durably, via a private
// temporary file in the same directory and a rename, creating the
// directory (0700) if needed.
func writeFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	return safefile.WriteDurable(path, data)
}
