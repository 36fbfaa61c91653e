package api

import (
	"bytes"
	"encoding/json"
	"errors"
)

// The CSV form reads every value of a JSON answer once, as text: these
// walk JSON without decoding it. encoding/json's Decoder allocated per
// token (65,000 allocations and 10 ms for a year's K-line of one code,
// twelve times the JSON answer's own cost); these allocate only the cells.

var errJSON = errors.New("malformed JSON")

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}

// valueEnd is the index after the JSON value that starts at b[i].
func valueEnd(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errJSON
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				end, err := stringEnd(b, i)
				if err != nil {
					return 0, err
				}
				i = end
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, nil
				}
			}
			i++
		}
		return 0, errJSON
	}
	start := i
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\n' && b[i] != '\t' && b[i] != '\r' {
		i++
	}
	if i == start {
		return 0, errJSON
	}
	return i, nil
}

// stringEnd is the index after the string whose quote is b[i].
func stringEnd(b []byte, i int) (int, error) {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1, nil
		}
	}
	return 0, errJSON
}

// eachElement calls fn with each element of the array b, as text.
func eachElement(b []byte, fn func(v []byte) error) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return errJSON
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return nil
	}
	for {
		end, err := valueEnd(b, i)
		if err != nil {
			return err
		}
		if err := fn(b[i:end]); err != nil {
			return err
		}
		i = skipSpace(b, end)
		switch {
		case i < len(b) && b[i] == ',':
			i = skipSpace(b, i+1)
		case i < len(b) && b[i] == ']':
			return nil
		default:
			return errJSON
		}
	}
}

// eachMember calls fn with each member of the object b: its name (the
// string's text, unescaped) and its value as text.
func eachMember(b []byte, fn func(name string, v []byte) error) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return errJSON
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return nil
	}
	for {
		kend, err := valueEnd(b, i)
		if err != nil || b[i] != '"' {
			return errJSON
		}
		name, err := unquote(b[i:kend])
		if err != nil {
			return err
		}
		i = skipSpace(b, kend)
		if i >= len(b) || b[i] != ':' {
			return errJSON
		}
		i = skipSpace(b, i+1)
		end, err := valueEnd(b, i)
		if err != nil {
			return err
		}
		if err := fn(name, b[i:end]); err != nil {
			return err
		}
		i = skipSpace(b, end)
		switch {
		case i < len(b) && b[i] == ',':
			i = skipSpace(b, i+1)
		case i < len(b) && b[i] == '}':
			return nil
		default:
			return errJSON
		}
	}
}

// unquote is a JSON string's text.
func unquote(s []byte) (string, error) {
	if len(s) < 2 {
		return "", errJSON
	}
	if bytes.IndexByte(s, '\\') < 0 {
		return string(s[1 : len(s)-1]), nil
	}
	var out string
	err := json.Unmarshal(s, &out)
	return out, err
}
