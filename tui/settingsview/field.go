package settingsview

import (
	"errors"
	"slices"
	"strings"

	"github.com/hangdog/hangdog/settings"
)

// field is one key being edited.
type field struct {
	entry settings.Entry
	orig  string // the effective value when the screen loaded
	text  string // the value as edited
	err   string // why text is refused, "" when valid
}

func newField(e settings.Entry) field {
	return field{entry: e, orig: e.Text(), text: e.Text()}
}

func (f *field) dirty() bool { return f.text != f.orig }

// set changes the text and checks it at once.
func (f *field) set(text string) {
	f.text = text
	f.err = ""
	if _, err := settings.Validate(f.entry.Key, text); err != nil {
		f.err = reason(err)
	}
}

// reason says why a value is refused without repeating the key.
func reason(err error) string {
	var se *settings.Error
	if errors.As(err, &se) {
		s := strings.TrimSpace(se.Value + " " + se.Reason)
		if se.Allowed != "" {
			s += "; allowed: " + se.Allowed
		}
		return s
	}
	return err.Error()
}

// toggle flips a boolean or moves a choice by step.
func (f *field) toggle(step int) {
	switch f.entry.Kind {
	case settings.KindBool:
		v, err := settings.Validate(f.entry.Key, f.text)
		on, _ := v.(bool)
		if err != nil {
			on = false
		}
		if on {
			f.set("false")
		} else {
			f.set("true")
		}
	case settings.KindChoice:
		choices := f.entry.Choices
		i := slices.Index(choices, f.text)
		if i < 0 {
			i = 0
		} else {
			i = (i + step + len(choices)) % len(choices)
		}
		f.set(choices[i])
	}
}

// typed reports whether the field takes typed text rather than toggles.
func (f *field) typed() bool {
	return f.entry.Kind != settings.KindBool && f.entry.Kind != settings.KindChoice
}
