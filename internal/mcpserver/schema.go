package mcpserver

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// inputSchema is the JSON schema of a tool's input type In: the SDK's
// inference (types, required fields, the jsonschema tag as the
// description), with what its tags cannot say added from ours, so that an
// agent sees every closed set and a value it can copy:
//
//	enum:"D,1m,5m"             the values a parameter takes
//	default:"D"                what an absent parameter means
//	examples:"600519.SH|sh600519"  values to copy ("|" between them)
//	min:"1" max:"200"          a number's bounds; an array's length
//
// A field without omitempty is required, and must carry a default or
// examples (TestEveryParameterCanBeCopied).
func inputSchema[In any]() *jsonschema.Schema {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: schema of %T: %v", *new(In), err))
	}
	t := reflect.TypeFor[In]()
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		p := s.Properties[name]
		if p == nil {
			continue
		}
		kind := f.Type.Kind()
		elem := f.Type
		if kind == reflect.Slice {
			elem = f.Type.Elem()
		}
		// An absent parameter is a missing one, never null: the SDK's
		// inference allows null for slices, which an agent need not see.
		if kind == reflect.Slice {
			p.Types, p.Type = nil, "array"
		}
		target := p
		if kind == reflect.Slice && p.Items != nil {
			target = p.Items
		}
		if v, ok := f.Tag.Lookup("enum"); ok {
			for _, e := range strings.Split(v, ",") {
				target.Enum = append(target.Enum, typed(e, elem.Kind()))
			}
		}
		if v, ok := f.Tag.Lookup("default"); ok {
			b, _ := json.Marshal(typed(v, kind))
			p.Default = b
		}
		if v, ok := f.Tag.Lookup("examples"); ok {
			for _, e := range strings.Split(v, "|") {
				if kind == reflect.Slice {
					var arr []any
					for _, x := range strings.Split(e, ",") {
						arr = append(arr, typed(x, elem.Kind()))
					}
					p.Examples = append(p.Examples, arr)
					continue
				}
				p.Examples = append(p.Examples, typed(e, kind))
			}
		}
		for _, b := range []struct {
			tag string
			num **float64
			n   **int
		}{{"min", &p.Minimum, &p.MinItems}, {"max", &p.Maximum, &p.MaxItems}} {
			v, ok := f.Tag.Lookup(b.tag)
			if !ok {
				continue
			}
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				panic(fmt.Sprintf("mcpserver: %s of %s: %v", b.tag, name, err))
			}
			if kind == reflect.Slice {
				n := int(x)
				*b.n = &n
			} else {
				*b.num = &x
			}
		}
	}
	return s
}

// typed is a tag's text as the JSON value of a field of kind k.
func typed(s string, k reflect.Kind) any {
	switch k {
	case reflect.Int, reflect.Int64, reflect.Int32:
		n, err := strconv.Atoi(s)
		if err != nil {
			panic("mcpserver: not an integer in a tag: " + s)
		}
		return n
	case reflect.Float64:
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			panic("mcpserver: not a number in a tag: " + s)
		}
		return x
	case reflect.Bool:
		return s == "true"
	}
	return s
}
