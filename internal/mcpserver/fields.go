package mcpserver

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// Reading the fields of the API's answers, split by the scanner.

// sortRows orders rows by a numeric field, unknown values last whatever
// the order, ties in their order before.
func sortRows(rows []json.RawMessage, name string, asc bool) {
	type keyed struct {
		row json.RawMessage
		v   float64
		ok  bool
	}
	ks := make([]keyed, len(rows))
	for i, r := range rows {
		v, ok := number(field(r, name))
		ks[i] = keyed{r, v, ok}
	}
	slices.SortStableFunc(ks, func(a, b keyed) int {
		switch {
		case a.ok != b.ok:
			if a.ok {
				return -1
			}
			return 1
		case !a.ok || a.v == b.v:
			return 0
		case (a.v < b.v) == asc:
			return -1
		}
		return 1
	})
	for i, k := range ks {
		rows[i] = k.row
	}
}

// lookup follows a dotted path from the answer's fields through objects
// and lists.
func lookup(fields map[string]json.RawMessage, p string) json.RawMessage {
	head, rest, more := strings.Cut(p, ".")
	if !more {
		return fields[head]
	}
	return path(fields[head], rest)
}

// path follows a dotted path through objects and lists ("0.reason").
func path(raw []byte, p string) []byte {
	for p != "" && raw != nil {
		var head string
		head, p, _ = strings.Cut(p, ".")
		if i, err := strconv.Atoi(head); err == nil {
			list, err := items(raw)
			if err != nil || i >= len(list) {
				return nil
			}
			raw = list[i]
			continue
		}
		raw = field(raw, head)
	}
	return raw
}

func firstString(fields map[string]json.RawMessage, paths ...string) string {
	for _, p := range paths {
		if s, ok := str(lookup(fields, p)); ok && s != "" {
			return s
		}
	}
	return ""
}

// rowsString is the rows' field when they agree, else their values
// joined (the quotes of two sources).
func rowsString(rows []json.RawMessage, name string) string {
	var seen []string
	for _, r := range rows {
		if s, ok := str(field(r, name)); ok && s != "" && !slices.Contains(seen, s) {
			seen = append(seen, s)
		}
	}
	return strings.Join(seen, ",")
}

// rowsLatest is the latest of the rows' times in field (text in the API's
// YYYY-MM-DD HH:MM:SS, which sorts as it reads).
func rowsLatest(rows []json.RawMessage, name string) string {
	latest := ""
	for _, r := range rows {
		if s, ok := str(field(r, name)); ok && s > latest {
			latest = s
		}
	}
	return latest
}

func str(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1]), true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

func number(raw []byte) (float64, bool) {
	if len(raw) == 0 || isNull(raw) || raw[0] == '"' {
		return 0, false
	}
	x, err := strconv.ParseFloat(string(bytes.TrimSpace(raw)), 64)
	return x, err == nil
}

func isNull(raw []byte) bool { return string(bytes.TrimSpace(raw)) == "null" }

func cut(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
