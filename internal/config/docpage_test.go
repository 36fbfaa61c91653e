package config

import (
	"flag"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/pelletier/go-toml/v2"

	"mdqs/internal/checkout"
	"mdqs/internal/docpage"
)

var updatePage = flag.Bool("update", false, "rewrite docs/configuration.md from config.toml")

const regenerate = "go test ./internal/config -run TestConfigurationPage -update"

// The configuration reference is generated from config.toml's comments,
// so the page, the file users copy and Default (TestShippedFileIsTheDefaults)
// cannot say different things. The comments are parsed here line by line
// because a TOML decoder drops them.
func TestConfigurationPage(t *testing.T) {
	text := shippedFile(t)
	file, err := parseCommented(string(text))
	if err != nil {
		t.Fatalf("config.toml: %v", err)
	}
	if err := file.matches(text); err != nil {
		t.Fatalf("config.toml: %v", err)
	}
	for _, tb := range file.tables {
		for _, k := range tb.keys {
			if k.comment == "" {
				t.Errorf("config.toml: %s.%s has no comment, and the page would not say what it means", tb.name, k.name)
			}
		}
	}
	anchors := map[string]string{}
	for _, tb := range file.tables {
		a := docpage.Slug("[" + tb.name + "]")
		if other, ok := anchors[a]; ok {
			t.Errorf("config.toml: [%s] and [%s] get the same anchor #%s, so the index cannot link both", other, tb.name, a)
		}
		anchors[a] = tb.name
	}
	page := file.page()

	root, err := checkout.Root()
	if err != nil {
		t.Fatal(err)
	}
	docpage.Check(t, filepath.Join(root, "docs", "configuration.md"), []byte(page), *updatePage, regenerate)
}

// commentedFile is config.toml as the page shows it: the header block,
// then every table in the file's order with its prose and keys.
type commentedFile struct {
	header []string // paragraphs
	tables []*commentedTable
}

type commentedTable struct {
	name  string   // dotted: sources.push2
	prose []string // paragraphs: the header line's comment, then the comment lines below it
	keys  []commentedKey
}

type commentedKey struct {
	name, value, comment string // value as written, "" quotes included
}

// parseCommented reads the layout config.toml keeps: a comment at column 0
// is prose (the file's header block before the first table, a table's
// prose between its header and its first key); an indented comment-only
// line continues the comment of the line above (a key's or a header's).
// Anything else is refused rather than rendered wrongly.
func parseCommented(text string) (*commentedFile, error) {
	f := &commentedFile{}
	var tb *commentedTable
	var prose *[]string   // where column-0 comments go, nil once a table has keys
	var continues *string // the comment an indented comment line extends
	newParagraph := true
	addProse := func(s string) {
		if s == "" { // a bare "#" separates paragraphs
			newParagraph = true
			return
		}
		if newParagraph || len(*prose) == 0 {
			*prose = append(*prose, s)
			newParagraph = false
			return
		}
		(*prose)[len(*prose)-1] += " " + s
	}
	prose = &f.header
	for n, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		bad := func(format string, args ...any) error {
			return fmt.Errorf("line %d %q: %s", n+1, line, fmt.Sprintf(format, args...))
		}
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "":
			newParagraph, continues = true, nil
		case strings.HasPrefix(line, "#"):
			if prose == nil {
				return nil, bad("a comment line between the keys of [%s]: put it in a key's comment or under the table's header", tb.name)
			}
			addProse(commentText(line))
			continues = nil
		case strings.HasPrefix(trimmed, "#"):
			if continues == nil {
				return nil, bad("an indented comment continues a key's or a header's comment, and there is none above")
			}
			*continues = strings.TrimSpace(*continues + " " + commentText(trimmed))
		case strings.HasPrefix(line, "["):
			head, comment := splitComment(line)
			name := strings.TrimSuffix(strings.TrimPrefix(head, "["), "]")
			if strings.HasPrefix(head, "[[") || !strings.HasSuffix(head, "]") || !isBareKey(name, true) {
				return nil, bad("not a [table] header this page can show")
			}
			tb = &commentedTable{name: name}
			f.tables = append(f.tables, tb)
			prose, newParagraph, continues = &tb.prose, true, nil
			if comment != "" {
				tb.prose = append(tb.prose, comment)
				continues = &tb.prose[0]
			}
		default:
			name, rest, ok := strings.Cut(line, "=")
			name = strings.TrimSpace(name)
			if !ok || tb == nil || !isBareKey(name, false) {
				return nil, bad("want name = value # comment inside a table")
			}
			value, comment := splitComment(rest)
			if value == "" {
				return nil, bad("a value on the key's own line")
			}
			tb.keys = append(tb.keys, commentedKey{name: name, value: value, comment: comment})
			prose, continues = nil, &tb.keys[len(tb.keys)-1].comment
		}
	}
	return f, nil
}

// commentText is a comment line's text without its "#" and the space
// after it.
func commentText(line string) string {
	return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "#"))
}

// splitComment splits a line at its comment's "#", which a string value
// may also hold (a proxy URL with a fragment).
func splitComment(line string) (code, comment string) {
	var quote byte
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case quote == '"' && c == '\\':
			i++
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '#':
			return strings.TrimSpace(line[:i]), strings.TrimSpace(line[i+1:])
		}
	}
	return strings.TrimSpace(line), ""
}

func isBareKey(s string, dotted bool) bool {
	if s == "" || strings.HasPrefix(s, ".") || strings.HasSuffix(s, ".") || strings.Contains(s, "..") {
		return false
	}
	for _, r := range s {
		if !(r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) || r == '_' || r == '-' || dotted && r == '.') {
			return false
		}
	}
	return true
}

// matches checks the line parser against go-toml: every key it found
// decodes to the value it read, and it found every key the decoder sees,
// so a value form it misreads (a string spanning lines) fails here.
func (f *commentedFile) matches(text []byte) error {
	var doc map[string]any
	if err := toml.Unmarshal(text, &doc); err != nil {
		return err
	}
	var found []string
	for _, tb := range f.tables {
		found = append(found, tb.name) // an empty table is a key of its own
		for _, k := range tb.keys {
			full := tb.name + "." + k.name
			found = append(found, full)
			var one map[string]any
			if err := toml.Unmarshal([]byte("v = "+k.value), &one); err != nil {
				return fmt.Errorf("%s: the value %s as read is not TOML: %v", full, k.value, err)
			}
			if want := lookup(doc, full); !reflect.DeepEqual(one["v"], want) {
				return fmt.Errorf("%s: read %s, the decoder says %#v", full, k.value, want)
			}
		}
	}
	for _, key := range flatKeys("", doc) {
		if !slices.Contains(found, key) {
			return fmt.Errorf("key %s is in the file but not found line by line", key)
		}
	}
	return nil
}

func lookup(doc map[string]any, dotted string) any {
	var v any = doc
	for part := range strings.SplitSeq(dotted, ".") {
		m, _ := v.(map[string]any)
		v = m[part]
	}
	return v
}

// page renders the reference. Prose is the comments' text as written,
// one paragraph a line, so a change to a comment shows as one changed line.
func (f *commentedFile) page() string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	p("# Configuration")
	p("")
	p("Every key of mdqs's configuration file, with its default and what it means. " +
		"This page is generated from [config.toml](../config.toml), the commented defaults " +
		"`mdqs config defaults` prints, by `TestConfigurationPage` (internal/config/docpage_test.go): " +
		"do not edit it by hand. Change the comments in config.toml and regenerate it with `" + regenerate + "`.")
	for _, para := range f.header {
		p("")
		p("%s", para)
	}
	p("")
	p("Sections:")
	p("")
	for _, tb := range f.tables {
		indent := ""
		if i := strings.LastIndex(tb.name, "."); i > 0 && slices.ContainsFunc(f.tables, func(o *commentedTable) bool { return o.name == tb.name[:i] }) {
			indent = "  "
		}
		p("%s- [\\[%s\\]](#%s)", indent, tb.name, docpage.Slug("["+tb.name+"]"))
	}
	for _, tb := range f.tables {
		p("")
		p("## [%s]", tb.name)
		for _, para := range tb.prose {
			p("")
			p("%s", para)
		}
		p("")
		if len(tb.keys) == 0 {
			p("No keys by default. From the environment: %s, an inline table of the whole section "+
				"(`{ NAME = { KEY = VALUE, ... } }`).", code(EnvVar(tb.name)))
			continue
		}
		p("| key | variable | default | meaning |")
		p("| --- | --- | --- | --- |")
		for _, k := range tb.keys {
			p("| %s | %s | %s | %s |", cell(code(tb.name+"."+k.name)), cell(code(EnvVar(tb.name+"."+k.name))), cell(code(k.value)), cell(k.comment))
		}
	}
	return b.String()
}

// code is a code span, fenced with more backticks than the text holds.
func code(s string) string {
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// cell escapes the one character that would end a table cell, also
// inside code spans.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
