package metrics

import (
	"bufio"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// ContentType is the exposition format this package writes.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// Type is a metric family's type line.
type Type string

const (
	Counter    Type = "counter"
	Gauge      Type = "gauge"
	HistogramT Type = "histogram"
)

// Labels are a sample's label pairs; they are written sorted by name so
// output is stable.
type Labels map[string]string

// Writer writes families in the text format. A family's HELP and TYPE are
// written by Family; its samples must follow before the next Family call,
// which the format requires.
type Writer struct {
	w   *bufio.Writer
	err error
}

func NewWriter(w io.Writer) *Writer { return &Writer{w: bufio.NewWriter(w)} }

// Family starts a metric family.
func (w *Writer) Family(name string, typ Type, help string) {
	w.str("# HELP " + name + " " + escapeHelp(help) + "\n")
	w.str("# TYPE " + name + " " + string(typ) + "\n")
}

// Sample writes one sample of the current family.
func (w *Writer) Sample(name string, labels Labels, v float64) {
	w.str(name)
	w.labels(labels, "", "")
	w.str(" " + formatFloat(v) + "\n")
}

// Histogram writes the _bucket, _sum and _count samples of one labelled
// histogram of the current family.
func (w *Writer) Histogram(name string, labels Labels, s HistogramSnapshot) {
	for i, c := range s.Cumulative {
		le := "+Inf"
		if i < len(s.Bounds) {
			le = formatFloat(s.Bounds[i])
		}
		w.str(name + "_bucket")
		w.labels(labels, "le", le)
		w.str(" " + strconv.FormatUint(c, 10) + "\n")
	}
	w.str(name + "_sum")
	w.labels(labels, "", "")
	w.str(" " + formatFloat(s.Sum) + "\n")
	w.str(name + "_count")
	w.labels(labels, "", "")
	w.str(" " + strconv.FormatUint(s.Count, 10) + "\n")
}

// Flush writes out what is buffered and returns the first error seen.
func (w *Writer) Flush() error {
	if w.err == nil {
		w.err = w.w.Flush()
	}
	return w.err
}

func (w *Writer) str(s string) {
	if w.err == nil {
		_, w.err = w.w.WriteString(s)
	}
}

func (w *Writer) labels(l Labels, extraName, extraValue string) {
	if len(l) == 0 && extraName == "" {
		return
	}
	names := make([]string, 0, len(l))
	for k := range l {
		names = append(names, k)
	}
	sort.Strings(names)
	w.str("{")
	for i, k := range names {
		if i > 0 {
			w.str(",")
		}
		w.str(k + `="` + escapeValue(l[k]) + `"`)
	}
	if extraName != "" {
		if len(names) > 0 {
			w.str(",")
		}
		w.str(extraName + `="` + escapeValue(extraValue) + `"`)
	}
	w.str("}")
}

var (
	valueEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
)

func escapeValue(s string) string { return valueEscaper.Replace(s) }
func escapeHelp(s string) string  { return helpEscaper.Replace(s) }

func formatFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
