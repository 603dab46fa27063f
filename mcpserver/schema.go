package mcpserver

import (
	"fmt"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
)

// inputSchema is the JSON schema of a tool's input, inferred from its Go
// type and then made portable and exact for models: an optional pointer
// field is one plain type (absent, not null, means "not given"), and no
// number a tool takes may be negative.
func inputSchema[In any]() (*jsonschema.Schema, error) {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		return nil, fmt.Errorf("input schema for %T: %w", *new(In), err)
	}
	zero := 0.0
	for _, p := range s.Properties {
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
