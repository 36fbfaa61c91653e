package mcpserver

import (
	"encoding/json"
	"errors"
)

// The tools read the API's answers without decoding them: they split an
// object into its members and a list into its items, as slices of the
// answer, and pass the rows on as the API wrote them. encoding/json's
// Unmarshal into json.RawMessage scans each level again and copies it; a
// K-line answer of 120 bars went through it four times (issue 34's
// benchmark, BenchmarkShape). The answers are the API's own valid JSON;
// the SDK validates what the tool answers.

var errJSON = errors.New("malformed JSON in mdqs's answer")

// member is one member of an object: its key (unescaped) and its value
// as written.
type member struct {
	key   []byte
	value []byte
}

// members splits an object into its members, in order.
func members(b []byte) ([]member, error) { return appendMembers(make([]member, 0, 24), b) }

// appendMembers appends the members of object b to out.
func appendMembers(out []member, b []byte) ([]member, error) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, errJSON
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return out, nil
	}
	for i < len(b) {
		if b[i] != '"' {
			return nil, errJSON
		}
		end, err := skipString(b, i)
		if err != nil {
			return nil, err
		}
		key, err := keyOf(b[i:end])
		if err != nil {
			return nil, err
		}
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return nil, errJSON
		}
		start := skipSpace(b, i+1)
		end, err = skipValue(b, start)
		if err != nil {
			return nil, err
		}
		out = append(out, member{key, b[start:end]})
		i = skipSpace(b, end)
		switch {
		case i < len(b) && b[i] == ',':
			i = skipSpace(b, i+1)
		case i < len(b) && b[i] == '}':
			return out, nil
		default:
			return nil, errJSON
		}
	}
	return nil, errJSON
}

// items splits a list into its items.
func items(b []byte) ([]json.RawMessage, error) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return nil, errJSON
	}
	out := make([]json.RawMessage, 0, 64)
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return out, nil
	}
	for i < len(b) {
		end, err := skipValue(b, i)
		if err != nil {
			return nil, err
		}
		out = append(out, b[i:end])
		i = skipSpace(b, end)
		switch {
		case i < len(b) && b[i] == ',':
			i = skipSpace(b, i+1)
		case i < len(b) && b[i] == ']':
			return out, nil
		default:
			return nil, errJSON
		}
	}
	return nil, errJSON
}

// field is the value of key in object b, nil when absent.
func field(b []byte, key string) []byte {
	ms, _ := members(b)
	for _, m := range ms {
		if string(m.key) == key {
			return m.value
		}
	}
	return nil
}

func keyOf(quoted []byte) ([]byte, error) {
	for _, c := range quoted[1 : len(quoted)-1] {
		if c == '\\' {
			var s string
			err := json.Unmarshal(quoted, &s)
			return []byte(s), err
		}
	}
	return quoted[1 : len(quoted)-1], nil
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string that starts at b[i]. The
// answers' strings are short (codes, names, dates): a loop beats
// bytes.IndexByte's call for them.
func skipString(b []byte, i int) (int, error) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, nil
		}
	}
	return 0, errJSON
}

// skipValue returns the index after the value that starts at b[i].
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errJSON
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, err := skipString(b, j)
				if err != nil {
					return 0, err
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1, nil
				}
			}
		}
		return 0, errJSON
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\n' && b[j] != '\t' && b[j] != '\r' {
		j++
	}
	if j == i {
		return 0, errJSON
	}
	return j, nil
}
