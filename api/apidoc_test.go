package api

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"mdqs/internal/docpage"
)

// The API reference, docs/api.md, is generated from the served OpenAPI
// document, so its field tables cannot drift from the contract that
// TestResponsesMatchOpenAPI holds the server to.

var update = flag.Bool("update", false, "rewrite docs/api.md from openapi.json (TestAPIReference)")

const apiReferenceFile = "../docs/api.md"

func TestAPIReference(t *testing.T) {
	got, err := renderAPIReference(openAPI(), openAPISource)
	if err != nil {
		t.Fatal(err)
	}
	docpage.Check(t, apiReferenceFile, got, *update, "go test ./api -run TestAPIReference -update")
}

// renderAPIReference writes the page. served is the document as the
// server sends it (with the recorded examples); source is openapi.json as
// written, whose key order the page follows: the served bytes went
// through a Go map, which sorts keys.
func renderAPIReference(served, source []byte) ([]byte, error) {
	root, err := decodeOrdered(served)
	if err != nil {
		return nil, fmt.Errorf("served openapi.json: %w", err)
	}
	like, err := decodeOrdered(source)
	if err != nil {
		return nil, fmt.Errorf("api/openapi.json: %w", err)
	}
	orderLike(root, like)
	d := &apiDoc{root: root.(*object), anchors: docpage.Anchors{}}
	return []byte(d.page()), nil
}

type apiDoc struct {
	root    *object
	b       strings.Builder
	anchors docpage.Anchors // GitHub heading slugs given so far
}

type operation struct {
	method, path, tag string
	op                *object
	params            []any
}

var httpMethods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

func (d *apiDoc) page() string {
	info := d.root.obj("info")
	d.heading("#", "API reference")
	d.printf("This page is the API's reference: every endpoint with its parameters, answers and fields. "+
		"It is generated from `api/openapi.json` (%s, version %s, with the examples recorded in `api/openapi_examples.json`) by `TestAPIReference` in `api/apidoc_test.go`; "+
		"do not edit it by hand, change the document and regenerate the page with `go test ./api -run TestAPIReference -update`. "+
		"The server serves the same contract at `GET /v1/openapi.json`. "+
		"In the tables of fields, *nullable* marks a field that may be `null`, and *optional* one that may be left out.\n\n", info.str("title"), info.str("version"))
	if desc := info.str("description"); desc != "" {
		d.heading("##", "Conventions")
		// Headings inside the description take slugs too, before ours.
		for _, l := range strings.Split(desc, "\n") {
			if h := strings.TrimLeft(l, "#"); h != l && strings.HasPrefix(h, " ") {
				d.anchor(strings.TrimSpace(h))
			}
		}
		d.printf("%s\n\n", strings.TrimSpace(desc))
	}

	// Grouped by tag (a ## heading each), the tags in the order they
	// first appear; the document's order within each.
	var ops []operation
	var tags []string
	paths := d.root.obj("paths")
	for _, path := range paths.names() {
		item := d.resolve(paths.get(path))
		for _, m := range item.names() {
			if !slices.Contains(httpMethods, m) {
				continue
			}
			op := item.obj(m)
			tag := "other"
			if t, ok := op.get("tags").([]any); ok && len(t) > 0 {
				tag = fmt.Sprint(t[0])
			}
			if !slices.Contains(tags, tag) {
				tags = append(tags, tag)
			}
			ops = append(ops, operation{strings.ToUpper(m), path, tag, op, d.parameters(item.list("parameters"), op.list("parameters"))})
		}
	}
	slices.SortStableFunc(ops, func(a, b operation) int {
		return slices.Index(tags, a.tag) - slices.Index(tags, b.tag)
	})

	d.heading("##", "Endpoints")
	d.printf("| tag | method | path | scope | summary |\n| --- | --- | --- | --- | --- |\n")
	// The index links to headings written after it: their anchors are
	// taken now, in page order, as GitHub numbers repeated slugs.
	newTag := func(i int) bool { return i == 0 || ops[i-1].tag != ops[i].tag }
	anchors := make([]string, len(ops))
	for i, o := range ops {
		if newTag(i) {
			d.anchor(o.tag)
		}
		anchors[i] = d.anchor(o.method + " " + o.path)
	}
	for i, o := range ops {
		scope, _ := d.access(o.op)
		d.printf("| %s | %s | [`%s`](#%s) | %s | %s |\n", cell(o.tag), o.method, codeCell(o.path), anchors[i], cell(scope), cell(o.op.str("summary")))
	}
	d.printf("\n")
	for i, o := range ops {
		if newTag(i) {
			d.printf("## %s\n\n", o.tag)
		}
		d.operation(o)
	}
	return strings.TrimRight(d.b.String(), "\n") + "\n"
}

func (d *apiDoc) operation(o operation) {
	d.printf("### %s %s\n\n", o.method, o.path) // its anchor was taken by the index
	if s := o.op.str("summary"); s != "" {
		d.printf("%s\n\n", prose(s))
	}
	if s := o.op.str("description"); s != "" {
		d.printf("%s\n\n", prose(s))
	}
	_, access := d.access(o.op)
	d.printf("**Access:** %s\n\n", access)

	if len(o.params) > 0 {
		d.printf("**Parameters**\n\n| name | in | type | required | description |\n| --- | --- | --- | --- | --- |\n")
		for _, p := range o.params {
			p := d.resolve(p)
			desc := p.str("description")
			if ex, ok := p.vals["example"]; ok {
				desc = strings.TrimSpace(desc + " Example: " + code(ex) + ".")
			}
			d.printf("| `%s` | %s | %s | %s | %s |\n", codeCell(p.str("name")), p.str("in"), cell(d.typeOf(d.merged(p.get("schema"), 0))), yesNo(p.get("required") == true), cell(desc))
		}
		d.printf("\n")
	}

	if body := d.resolve(o.op.get("requestBody")); body != nil {
		content := body.obj("content")
		for _, mt := range content.names() {
			media := content.obj(mt)
			d.printf("**Request body** (`%s`, %s)", mt, map[bool]string{true: "required", false: "optional"}[body.get("required") == true])
			if s := body.str("description"); s != "" {
				d.printf(": %s", prose(s))
			}
			d.printf("\n\n")
			d.schema(media.get("schema"), true)
			d.example("Example request", mt, media)
		}
	}

	responses := d.resolve(o.op.get("responses"))
	codes := slices.Clone(responses.names())
	slices.SortFunc(codes, func(a, b string) int { return statusOrder(a) - statusOrder(b) })
	for _, c := range codes {
		if !strings.HasPrefix(c, "2") {
			continue
		}
		r := d.resolve(responses.get(c))
		content := r.obj("content")
		if content == nil || len(content.names()) == 0 {
			d.printf("**Answer** (`%s`): %s No body.\n\n", c, prose(r.str("description")))
		}
		for _, mt := range content.names() {
			media := content.obj(mt)
			d.printf("**Answer** (`%s`, `%s`): %s\n\n", c, mt, prose(r.str("description")))
			d.schema(media.get("schema"), false)
			d.example("Example", mt, media)
		}
	}

	d.printf("**Statuses**\n\n| status | meaning |\n| --- | --- |\n")
	for _, c := range codes {
		r := d.resolve(responses.get(c))
		meaning := r.str("description")
		headers := r.obj("headers")
		for _, h := range headers.names() {
			meaning += " Header `" + h + "`"
			if s := d.resolve(headers.get(h)).str("description"); s != "" {
				meaning += ": " + s
			}
			meaning = strings.TrimSuffix(meaning, ".") + "."
		}
		d.printf("| %s | %s |\n", c, cell(meaning))
	}
	d.printf("\n")
}

// schema writes a body's fields as a table, or says what the body is when
// it has none.
func (d *apiDoc) schema(raw any, request bool) {
	s := d.merged(raw, 0)
	if s == nil {
		return
	}
	rows := d.fields("", raw, 0, map[string]string{})
	if len(rows) == 0 {
		if s.str("type") == "object" && s.get("additionalProperties") == false {
			d.printf("A JSON object with no fields (`{}`).\n\n")
		} else {
			d.printf("Type: %s.\n\n", d.typeOf(s))
		}
		return
	}
	if request {
		d.printf("| field | type | required | description |\n| --- | --- | --- | --- |\n")
	} else {
		d.printf("| field | type | description |\n| --- | --- | --- |\n")
	}
	for _, r := range rows {
		if request {
			d.printf("| `%s` | %s | %s | %s |\n", codeCell(r.path), cell(r.typ), yesNo(r.required), cell(r.desc))
		} else {
			typ := r.typ
			if r.optional {
				typ += ", optional"
			}
			d.printf("| `%s` | %s | %s |\n", codeCell(r.path), cell(typ), cell(r.desc))
		}
	}
	d.printf("\n")
}

type docField struct {
	path, typ, desc string
	required        bool
	// optional: the object lists its required fields and not this one.
	// Many objects list none, and "optional" on all their fields would
	// say nothing.
	optional bool
}

// fields flattens a schema into dotted paths (an array's items under
// name[], a map's values under name.*), so the table reads like the
// answer itself. A named schema (a $ref) is spelled out once per table;
// its later uses point to the first, which also ends recursion.
func (d *apiDoc) fields(prefix string, raw any, depth int, seen map[string]string) []docField {
	s := d.merged(raw, 0)
	if s == nil || depth > 12 {
		return nil
	}
	if ref := refOf(raw); ref != "" {
		if _, dup := seen[ref]; dup {
			return nil
		}
		seen[ref] = prefix
	}
	if items := s.get("items"); items != nil {
		return d.fields(prefix+"[]", items, depth+1, seen)
	}
	var rows []docField
	required := s.list("required")
	props := s.obj("properties")
	for _, name := range props.names() {
		p := d.merged(props.get(name), 0)
		path := name
		if prefix != "" {
			path = prefix + "." + name
		}
		desc := p.str("description")
		if ex, ok := p.vals["example"]; ok {
			desc = strings.TrimSpace(desc + " Example: " + code(ex) + ".")
		}
		if first, ok := seen[refOf(props.get(name))]; ok {
			desc = strings.TrimSpace(desc + " Same fields as `" + first + "`.")
		} else if first, ok := seen[refOf(p.get("items"))]; ok {
			desc = strings.TrimSpace(desc + " Each entry as `" + first + "`.")
		}
		req := slices.Contains(required, any(name))
		rows = append(rows, docField{path, d.typeOf(p), desc, req, len(required) > 0 && !req})
		rows = append(rows, d.fields(path, props.get(name), depth+1, seen)...)
	}
	// A map's values get a row when its type alone does not say them.
	if ap, ok := s.get("additionalProperties").(*object); ok {
		apm := d.merged(ap, 0)
		if len(props.names()) > 0 || apm.get("properties") != nil || apm.get("items") != nil {
			desc := apm.str("description")
			if desc == "" {
				desc = "Any other key."
			}
			rows = append(rows, docField{prefix + ".*", d.typeOf(apm), desc, false, false})
			rows = append(rows, d.fields(prefix+".*", ap, depth+1, seen)...)
		}
	}
	// The forms of a oneOf share the path; each row says its form.
	for _, key := range []string{"oneOf", "anyOf"} {
		for i, alt := range s.list(key) {
			for _, r := range d.fields(prefix, alt, depth+1, seen) {
				r.desc = strings.TrimSpace(fmt.Sprintf("(form %d) %s", i+1, r.desc))
				rows = append(rows, r)
			}
		}
	}
	return rows
}

// refOf is the named schema a schema is: its $ref, or that of its only
// allOf member (the way to make a $ref nullable in OpenAPI 3.0).
func refOf(raw any) string {
	o, _ := raw.(*object)
	if ref := o.str("$ref"); ref != "" {
		return ref
	}
	if all := o.list("allOf"); len(all) == 1 {
		return refOf(all[0])
	}
	return ""
}

// typeOf says a schema's type in one line: the type with its format, then
// the values it may take.
func (d *apiDoc) typeOf(s *object) string {
	if s == nil {
		return "any"
	}
	t := s.str("type")
	if f := s.str("format"); f != "" {
		t += " (" + f + ")"
	}
	var alts []string
	for _, key := range []string{"oneOf", "anyOf"} {
		for _, a := range s.list(key) {
			if at := d.typeOf(d.merged(a, 0)); !slices.Contains(alts, at) {
				alts = append(alts, at)
			}
		}
	}
	ap, _ := s.get("additionalProperties").(*object)
	switch {
	case t == "array" || (t == "" && s.get("items") != nil):
		t = "array of " + wrap(d.typeOf(d.merged(s.get("items"), 0)))
	case t == "" && len(alts) == 1:
		t = alts[0] + " (one of " + strconv.Itoa(len(s.list("oneOf"))+len(s.list("anyOf"))) + " forms)"
	case t == "" && len(alts) > 1:
		t = "one of: " + strings.Join(alts, " or ")
	case t == "" && s.get("properties") != nil:
		t = "object"
	case t == "":
		t = "any"
	}
	if ap != nil && len(s.obj("properties").names()) == 0 {
		t = "map of " + wrap(d.typeOf(d.merged(ap, 0)))
	}
	parts := []string{t}
	if enum := s.list("enum"); len(enum) > 0 {
		vals := make([]string, len(enum))
		for i, v := range enum {
			vals[i] = code(v)
		}
		parts = append(parts, "one of "+strings.Join(vals, ", "))
	}
	if r := bounds(s, "minimum", "maximum", ""); r != "" {
		parts = append(parts, r)
	}
	if r := bounds(s, "minLength", "maxLength", " characters"); r != "" {
		parts = append(parts, r)
	}
	if r := bounds(s, "minItems", "maxItems", " items"); r != "" {
		parts = append(parts, r)
	}
	if p := s.str("pattern"); p != "" {
		parts = append(parts, "pattern "+code(p))
	}
	if v, ok := s.vals["default"]; ok {
		parts = append(parts, "default "+code(v))
	}
	if s.get("nullable") == true {
		parts = append(parts, "nullable")
	}
	return strings.Join(parts, ", ")
}

func bounds(s *object, lo, hi, unit string) string {
	l, lok := s.get(lo).(json.Number)
	h, hok := s.get(hi).(json.Number)
	switch {
	case lok && hok:
		return fmt.Sprintf("%s to %s%s", l, h, unit)
	case lok:
		return fmt.Sprintf("at least %s%s", l, unit)
	case hok:
		return fmt.Sprintf("at most %s%s", h, unit)
	}
	return ""
}

// wrap keeps an item type's own commas apart from its array's.
func wrap(t string) string {
	if strings.Contains(t, ",") {
		return "(" + t + ")"
	}
	return t
}

// merged resolves a schema and folds its allOf members into one: the
// envelope's data {} and the answer's own data become one row, not two.
// The schema's own keywords win over its members' (a nullable $ref keeps
// its description); a later member's property replaces an earlier one.
func (d *apiDoc) merged(v any, depth int) *object {
	s := d.resolve(v)
	if s == nil || len(s.list("allOf")) == 0 || depth > 12 {
		return s
	}
	out := &object{vals: map[string]any{}}
	props := &object{vals: map[string]any{}}
	var required []any
	add := func(from *object, own bool) {
		for _, k := range from.names() {
			switch k {
			case "allOf":
			case "properties":
				p := from.obj(k)
				for _, name := range p.names() {
					props.set(name, p.get(name))
				}
			case "required":
				for _, r := range from.list(k) {
					if !slices.Contains(required, r) {
						required = append(required, r)
					}
				}
			default:
				if _, ok := out.vals[k]; own || !ok {
					out.set(k, from.get(k))
				}
			}
		}
	}
	add(s, true)
	for _, m := range s.list("allOf") {
		add(d.merged(m, depth+1), false)
	}
	if len(props.names()) > 0 {
		out.set("properties", props)
	}
	if len(required) > 0 {
		out.set("required", required)
	}
	return out
}

// parameters lists the path item's parameters, then the operation's; an
// operation's parameter replaces the path's of the same name and place.
func (d *apiDoc) parameters(pathLevel, opLevel []any) []any {
	var out []any
	key := func(p any) string { o := d.resolve(p); return o.str("in") + " " + o.str("name") }
	for _, p := range pathLevel {
		if !slices.ContainsFunc(opLevel, func(q any) bool { return key(q) == key(p) }) {
			out = append(out, p)
		}
	}
	return append(out, opLevel...)
}

var (
	scopeRe     = regexp.MustCompile(`^Scope (\w+)\.`)
	anyScopeRe  = regexp.MustCompile(`^Any scope\.`)
	scopeWordRe = regexp.MustCompile(`the (\w+) scope`)
)

// access says who may call an operation: the short form for the index,
// the sentence for its section. The security requirements say how a
// caller signs; the scope is only in the description, which by
// convention starts with "Scope X.".
func (d *apiDoc) access(op *object) (short, long string) {
	sec, ok := op.vals["security"].([]any)
	if !ok {
		sec, _ = d.root.vals["security"].([]any)
	}
	if len(sec) == 0 {
		return "public", "public: no token, no signature."
	}
	desc := op.str("description")
	scope := "signed"
	switch {
	case scopeRe.MatchString(desc):
		scope = scopeRe.FindStringSubmatch(desc)[1]
	case anyScopeRe.MatchString(desc):
		scope = "any scope"
	case scopeWordRe.MatchString(desc):
		scope = scopeWordRe.FindStringSubmatch(desc)[1]
	}
	schemes := d.root.obj("components").obj("securitySchemes")
	var ways []string
	anonymous := false
	for _, req := range sec {
		req, _ := req.(*object)
		if len(req.names()) == 0 {
			anonymous = true
			continue
		}
		var names []string
		for _, name := range req.names() {
			s := d.resolve(schemes.get(name))
			switch {
			case s.str("type") == "http" && s.str("scheme") == "bearer":
				names = append(names, "`Authorization: Bearer`")
			case s.str("in") == "header":
				names = append(names, "`"+s.str("name")+"`")
			default:
				names = append(names, "`"+name+"`")
			}
		}
		if len(names) == 1 && names[0] == "`Authorization: Bearer`" {
			ways = append(ways, "a bearer token alone (`Authorization: Bearer`, no signature)")
			continue
		}
		ways = append(ways, "signed ("+strings.Join(names, ", ")+")")
	}
	long = "scope `" + scope + "`"
	if scope == "any scope" || scope == "signed" {
		long = scope
	}
	long += ", " + strings.Join(ways, " or ")
	if anonymous {
		return scope + " or none", long + "; or no credentials at all, as the description says."
	}
	return scope, long + "."
}

// example writes the media type's example, folded away. A long JSON
// example keeps its shape with fewer list entries; text is cut by lines.
func (d *apiDoc) example(label, mt string, media *object) {
	v, ok := media.vals["example"]
	if !ok {
		examples := media.obj("examples")
		if len(examples.names()) == 0 {
			return
		}
		v = d.resolve(examples.get(examples.names()[0])).get("value")
	}
	const maxLines = 100
	var text, note, lang string
	if s, isString := v.(string); isString && !strings.Contains(mt, "json") {
		lang, text = "text", strings.TrimRight(s, "\n")
	} else {
		lang = "json"
		for _, n := range []int{-1, 3, 2, 1} {
			p := &jsonPrinter{maxItems: n}
			p.write(v, "")
			text = p.b.String()
			if p.cut {
				note = fmt.Sprintf("Lists cut to %d %s here; `GET /v1/openapi.json` has the whole example.", n, map[bool]string{true: "entry", false: "entries"}[n == 1])
			}
			if strings.Count(text, "\n") < maxLines {
				break
			}
		}
	}
	if lines := strings.Split(text, "\n"); len(lines) > maxLines {
		text = strings.Join(lines[:maxLines], "\n") + "\n…"
		note = strings.TrimSpace(fmt.Sprintf("The first %d of %d lines. %s", maxLines, len(lines), note))
	}
	d.printf("<details><summary>%s</summary>\n\n```%s\n%s\n```\n\n", label, lang, text)
	if note != "" {
		d.printf("%s\n\n", note)
	}
	d.printf("</details>\n\n")
}

// jsonPrinter indents JSON two spaces with its keys in order and without
// HTML escapes, optionally keeping only the first maxItems of each list.
type jsonPrinter struct {
	b        strings.Builder
	maxItems int // -1: all
	cut      bool
}

func (p *jsonPrinter) write(v any, indent string) {
	switch v := v.(type) {
	case *object:
		if len(v.keys) == 0 {
			p.b.WriteString("{}")
			return
		}
		p.b.WriteString("{")
		for i, k := range v.keys {
			if i > 0 {
				p.b.WriteString(",")
			}
			p.b.WriteString("\n" + indent + "  " + jsonString(k) + ": ")
			p.write(v.vals[k], indent+"  ")
		}
		p.b.WriteString("\n" + indent + "}")
	case []any:
		if len(v) == 0 {
			p.b.WriteString("[]")
			return
		}
		if p.maxItems >= 0 && len(v) > p.maxItems {
			v, p.cut = v[:p.maxItems], true
		}
		p.b.WriteString("[")
		for i, x := range v {
			if i > 0 {
				p.b.WriteString(",")
			}
			p.b.WriteString("\n" + indent + "  ")
			p.write(x, indent+"  ")
		}
		p.b.WriteString("\n" + indent + "]")
	case string:
		p.b.WriteString(jsonString(v))
	case json.Number:
		p.b.WriteString(string(v))
	case bool:
		p.b.WriteString(strconv.FormatBool(v))
	default:
		p.b.WriteString("null")
	}
}

func jsonString(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(buf.String(), "\n")
}

// code is a value as a code span: a string bare, anything else as JSON.
func code(v any) string {
	s, ok := v.(string)
	if !ok || s == "" {
		p := &jsonPrinter{maxItems: -1}
		p.write(v, "")
		var buf bytes.Buffer
		_ = json.Compact(&buf, []byte(p.b.String()))
		s = buf.String()
	}
	if strings.Contains(s, "`") {
		return "`` " + s + " ``"
	}
	return "`" + s + "`"
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func statusOrder(code string) int {
	if n, err := strconv.Atoi(code); err == nil {
		return n
	}
	return 1000 // "default" and 2XX ranges last
}

func (d *apiDoc) printf(format string, args ...any) { fmt.Fprintf(&d.b, format, args...) }

func (d *apiDoc) heading(level, text string) {
	d.anchor(text)
	d.printf("%s %s\n\n", level, text)
}

// anchor is the id GitHub gives the next heading with this text.
func (d *apiDoc) anchor(text string) string { return d.anchors.Add(text) }

// prose makes the document's plain-text descriptions safe as markdown:
// outside code spans, * and word-edge _ would start emphasis and <x an
// HTML tag, which GitHub would hide.
func prose(s string) string {
	var b strings.Builder
	inCode := false
	rs := []rune(s)
	for i, r := range rs {
		alnum := func(j int) bool {
			return j >= 0 && j < len(rs) && (unicode.IsLetter(rs[j]) || unicode.IsDigit(rs[j]))
		}
		switch {
		case r == '`':
			inCode = !inCode
		case inCode:
		case r == '*', r == '_' && !(alnum(i-1) && alnum(i+1)), r == '<' && i+1 < len(rs) && (unicode.IsLetter(rs[i+1]) || rs[i+1] == '/'):
			b.WriteRune('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// cell is prose fit for a table cell: one line, | escaped.
func cell(s string) string {
	return strings.ReplaceAll(prose(strings.Join(strings.Fields(s), " ")), "|", `\|`)
}

// codeCell is text for a code span in a table cell, where only | needs
// care.
func codeCell(s string) string {
	return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "|", `\|`)
}

// object is a JSON object that keeps its keys in the order written.
type object struct {
	keys []string
	vals map[string]any
}

func (o *object) get(k string) any {
	if o == nil {
		return nil
	}
	return o.vals[k]
}

func (o *object) names() []string {
	if o == nil {
		return nil
	}
	return o.keys
}

func (o *object) obj(k string) *object { v, _ := o.get(k).(*object); return v }
func (o *object) str(k string) string  { v, _ := o.get(k).(string); return v }
func (o *object) list(k string) []any  { v, _ := o.get(k).([]any); return v }

func (o *object) set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

// resolve follows $ref (local JSON pointers only, as the document uses).
func (d *apiDoc) resolve(v any) *object {
	o, _ := v.(*object)
	for i := 0; o != nil && i < 16; i++ {
		ref := o.str("$ref")
		if ref == "" {
			return o
		}
		if !strings.HasPrefix(ref, "#/") {
			return nil
		}
		o = d.root
		for _, part := range strings.Split(ref[2:], "/") {
			o = o.obj(strings.NewReplacer("~1", "/", "~0", "~").Replace(part))
		}
	}
	return o
}

// decodeOrdered decodes JSON into *object, []any, string, json.Number,
// bool and nil.
func decodeOrdered(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var value func() (any, error)
	value = func() (any, error) {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		switch tok {
		case json.Delim('{'):
			o := &object{vals: map[string]any{}}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := value()
				if err != nil {
					return nil, err
				}
				o.set(k.(string), v)
			}
			_, err = dec.Token()
			return o, err
		case json.Delim('['):
			a := []any{}
			for dec.More() {
				v, err := value()
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err = dec.Token()
			return a, err
		}
		return tok, nil
	}
	v, err := value()
	if err == nil && dec.More() {
		err = fmt.Errorf("data after the top-level value")
	}
	if _, ok := v.(*object); err == nil && !ok {
		err = fmt.Errorf("not a JSON object")
	}
	return v, err
}

// orderLike puts v's object keys in like's order, keys like lacks after
// (in v's order), at every level the two share.
func orderLike(v, like any) {
	switch v := v.(type) {
	case *object:
		l, _ := like.(*object)
		if l != nil {
			keys := make([]string, 0, len(v.keys))
			for _, k := range l.keys {
				if _, ok := v.vals[k]; ok {
					keys = append(keys, k)
				}
			}
			for _, k := range v.keys {
				if _, ok := l.vals[k]; !ok {
					keys = append(keys, k)
				}
			}
			v.keys = keys
		}
		for _, k := range v.keys {
			orderLike(v.vals[k], l.get(k))
		}
	case []any:
		la, _ := like.([]any)
		for i := range v {
			var li any
			if i < len(la) {
				li = la[i]
			}
			orderLike(v[i], li)
		}
	}
}
