package mcpserver

import (
	"fmt"
	"regexp"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/hangdog/hangdog/settings"
)

// settingRef in a field's description ("default {watchers.maxFires}")
// names a setting whose built-in default the schema states: the number is
// read from the settings table, never written twice.
var settingRef = regexp.MustCompile(`\{([a-z][A-Za-z]*\.[a-z][A-Za-z]*)\}`)

// inputSchema is the JSON schema of a tool's input, inferred from its Go
// type and then made portable and exact for models: an optional pointer
// field is one plain type (absent, not null, means "not given"), and no
// number a tool takes may be negative. A setting named in braces in a
// description becomes its default (settingRef).
func inputSchema[In any]() (*jsonschema.Schema, error) {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		return nil, fmt.Errorf("input schema for %T: %w", *new(In), err)
	}
	zero := 0.0
	for _, p := range s.Properties {
		p.Description = settingRef.ReplaceAllStringFunc(p.Description, func(ref string) string {
			return settings.DefaultText(ref[1 : len(ref)-1])
		})
		if len(p.Types) == 2 && slices.Contains(p.Types, "null") {
			p.Type = p.Types[0]
			if p.Type == "null" {
				p.Type = p.Types[1]
			}
			p.Types = nil
		}
		if p.Type == "integer" || p.Type == "number" {
			p.Minimum = &zero
		}
	}
	return s, nil
}
