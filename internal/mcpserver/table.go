package mcpserver

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// table is the result as a short text: a line of provenance and units,
// then one line per row with the shape's columns, then the note.
func (res *Result) table(tool string, sh shape) string {
	var b strings.Builder
	b.Grow(64 * (len(res.Rows) + 4))
	fmt.Fprintf(&b, "%s · source %s · as_of %s", tool, cmp.Or(res.Source, "-"), res.AsOf)
	if res.AsOfFrom == "read" {
		b.WriteString(" (read time: the answer carries no time of its own)")
	}
	fmt.Fprintf(&b, " · %d rows", res.Count)
	if res.Total > res.Count {
		fmt.Fprintf(&b, " of %d", res.Total)
	}
	b.WriteByte('\n')
	var units []string
	scaled := false
	for _, c := range sh.columns {
		if u, ok := sh.units[c]; ok {
			units = append(units, c+" "+u)
			scaled = scaled || u == "元" || u == "股"
		}
	}
	if len(units) > 0 {
		b.WriteString("units: " + strings.Join(units, ", "))
		if scaled {
			b.WriteString(" (元 and 股 of 1e4 and more written here in 万 = 1e4 or 亿 = 1e8; the structured rows are exact)")
		}
		b.WriteByte('\n')
	}
	// A cell is cut at 80 characters, so that a row stays a line; the
	// one row of an item read in full (a news item's body) is whole.
	width := 80
	if sh.single {
		width = 1 << 20
	}
	if len(res.Rows) > 0 && len(sh.columns) > 0 {
		b.WriteString(strings.Join(sh.columns, " | "))
		b.WriteByte('\n')
		for _, r := range res.Rows {
			for i, c := range sh.columns {
				if i > 0 {
					b.WriteString(" | ")
				}
				writeCell(&b, res.value(r, c), sh.units[c], width)
			}
			b.WriteByte('\n')
		}
	} else if len(res.Rows) == 0 {
		b.WriteString("no rows\n")
	}
	if res.Note != "" {
		b.WriteString("note: " + res.Note + "\n")
	}
	return b.String()
}

// writeCell writes one value: text unquoted, null as -, lists of text
// joined, amounts and share counts of 1e4 and more in 万 or 亿.
func writeCell(b *strings.Builder, raw []byte, unit string, width int) {
	t := bytes.TrimSpace(raw)
	switch {
	case len(t) == 0 || isNull(t):
		b.WriteByte('-')
		return
	case t[0] == '"':
		s, _ := str(t)
		b.WriteString(cut(strings.ReplaceAll(s, "|", "/"), width))
		return
	case t[0] == '[':
		var list []string
		if json.Unmarshal(t, &list) == nil {
			b.WriteString(cut(strings.Join(list, ","), width))
			return
		}
		b.WriteString(cut(string(t), width))
		return
	case t[0] == '{':
		b.WriteString(cut(string(t), width))
		return
	}
	if unit == "元" || unit == "股" {
		if x, err := strconv.ParseFloat(string(t), 64); err == nil {
			var buf [32]byte
			switch a := math.Abs(x); {
			case a >= 1e8:
				b.Write(strconv.AppendFloat(buf[:0], x/1e8, 'f', 2, 64))
				b.WriteString("亿")
				return
			case a >= 1e4:
				b.Write(strconv.AppendFloat(buf[:0], x/1e4, 'f', 2, 64))
				b.WriteString("万")
				return
			}
		}
	}
	b.Write(t)
}
