// Package binstruct encodes plain structs field by field, in declaration
// order, without names: strings, bools, integers, floats, slices, pointers,
// nested structs and time.Time. Fields tagged `json:"-"` are left out.
//
// It exists for the hand-over from a caller to its supervisor, which is on
// every command's critical path: encoding/json's first use in a fresh
// process builds its type caches by reflection and costs about 0.3 ms here,
// this costs a few microseconds. Both ends must be built from the same
// types; Shape fingerprints them so a mismatch (binaries from two builds)
// is refused instead of misread.
package binstruct

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/fnv"
	"math"
	"reflect"
	"time"
)

var timeType = reflect.TypeFor[time.Time]()

// Append appends the encoding of v, a struct, to b.
func Append(b []byte, v any) ([]byte, error) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Struct {
		return b, fmt.Errorf("binstruct: %T is not a struct", v)
	}
	return appendValue(b, rv)
}

func appendValue(b []byte, v reflect.Value) ([]byte, error) {
	switch v.Kind() {
	case reflect.String:
		b = binary.AppendUvarint(b, uint64(v.Len()))
		return append(b, v.String()...), nil
	case reflect.Bool:
		if v.Bool() {
			return append(b, 1), nil
		}
		return append(b, 0), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return binary.AppendVarint(b, v.Int()), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return binary.AppendUvarint(b, v.Uint()), nil
	case reflect.Float32, reflect.Float64:
		return binary.LittleEndian.AppendUint64(b, math.Float64bits(v.Float())), nil
	case reflect.Slice:
		b = binary.AppendUvarint(b, uint64(v.Len()))
		var err error
		for i := range v.Len() {
			if b, err = appendValue(b, v.Index(i)); err != nil {
				return b, err
			}
		}
		return b, nil
	case reflect.Pointer:
		if v.IsNil() {
			return append(b, 0), nil
		}
		return appendValue(append(b, 1), v.Elem())
	case reflect.Struct:
		if v.Type() == timeType {
			t := v.Interface().(time.Time)
			b = binary.AppendVarint(b, t.Unix())
			return binary.AppendVarint(b, int64(t.Nanosecond())), nil
		}
		var err error
		for i := range v.NumField() {
			if !encoded(v.Type().Field(i)) {
				continue
			}
			if b, err = appendValue(b, v.Field(i)); err != nil {
				return b, err
			}
		}
		return b, nil
	}
	return b, fmt.Errorf("binstruct: cannot encode a %s", v.Type())
}

// encoded says whether a struct field travels.
func encoded(f reflect.StructField) bool {
	return f.IsExported() && f.Tag.Get("json") != "-"
}

// ErrTruncated means the input ended inside a value.
var ErrTruncated = errors.New("binstruct: input ends inside a value")

// Decode decodes b, as Append encoded it, into the struct p points to.
func Decode(b []byte, p any) error {
	rv := reflect.ValueOf(p)
	if rv.Kind() != reflect.Pointer || rv.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("binstruct: %T is not a pointer to a struct", p)
	}
	d := decoder{b: b}
	d.value(rv.Elem())
	if d.err == nil && len(d.b) != 0 {
		d.err = fmt.Errorf("binstruct: %d bytes left after the value", len(d.b))
	}
	return d.err
}

type decoder struct {
	b   []byte
	err error
}

func (d *decoder) uvarint() uint64 { return readVarint(d, binary.Uvarint) }
func (d *decoder) varint() int64   { return readVarint(d, binary.Varint) }

func readVarint[T int64 | uint64](d *decoder, read func([]byte) (T, int)) T {
	x, n := read(d.b)
	if n <= 0 {
		d.err = ErrTruncated
		return 0
	}
	d.b = d.b[n:]
	return x
}

// take returns the next n bytes, or nil (with the error set) if there are
// fewer.
func (d *decoder) take(n uint64) []byte {
	if d.err != nil || n > uint64(len(d.b)) {
		d.err = firstErr(d.err, ErrTruncated)
		return nil
	}
	p := d.b[:n]
	d.b = d.b[n:]
	return p
}

func firstErr(have, want error) error {
	if have != nil {
		return have
	}
	return want
}

func (d *decoder) value(v reflect.Value) {
	if d.err != nil {
		return
	}
	switch v.Kind() {
	case reflect.String:
		if p := d.take(d.uvarint()); d.err == nil {
			v.SetString(string(p))
		}
	case reflect.Bool:
		if p := d.take(1); d.err == nil {
			v.SetBool(p[0] != 0)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(d.varint())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(d.uvarint())
	case reflect.Float32, reflect.Float64:
		if p := d.take(8); d.err == nil {
			v.SetFloat(math.Float64frombits(binary.LittleEndian.Uint64(p)))
		}
	case reflect.Slice:
		n := d.uvarint()
		// Every element takes at least one byte: a longer count is damage,
		// and must not become a huge allocation.
		if d.err != nil || n > uint64(len(d.b)) {
			d.err = firstErr(d.err, ErrTruncated)
			return
		}
		if n == 0 {
			return
		}
		s := reflect.MakeSlice(v.Type(), int(n), int(n))
		for i := range int(n) {
			d.value(s.Index(i))
		}
		v.Set(s)
	case reflect.Pointer:
		if p := d.take(1); d.err == nil && p[0] != 0 {
			e := reflect.New(v.Type().Elem())
			d.value(e.Elem())
			v.Set(e)
		}
	case reflect.Struct:
		if v.Type() == timeType {
			sec, nsec := d.varint(), d.varint()
			if d.err == nil {
				v.Set(reflect.ValueOf(time.Unix(sec, nsec)))
			}
			return
		}
		for i := range v.NumField() {
			if encoded(v.Type().Field(i)) {
				d.value(v.Field(i))
			}
		}
	default:
		d.err = fmt.Errorf("binstruct: cannot decode a %s", v.Type())
	}
}

// Shape fingerprints the layout of v's type: its encoded fields' names,
// kinds and order, recursively. Two builds that agree on it read each
// other's encodings.
func Shape(v any) uint64 {
	h := fnv.New64a()
	writeShape(h, reflect.TypeOf(v))
	return h.Sum64()
}

func writeShape(h hash.Hash, t reflect.Type) {
	h.Write([]byte(t.Kind().String()))
	switch t.Kind() {
	case reflect.Slice, reflect.Pointer:
		h.Write([]byte{'<'})
		writeShape(h, t.Elem())
		h.Write([]byte{'>'})
	case reflect.Struct:
		if t == timeType {
			h.Write([]byte("time"))
			return
		}
		h.Write([]byte{'{'})
		for i := range t.NumField() {
			if f := t.Field(i); encoded(f) {
				h.Write([]byte(f.Name + ":"))
				writeShape(h, f.Type)
				h.Write([]byte{';'})
			}
		}
		h.Write([]byte{'}'})
	}
}
