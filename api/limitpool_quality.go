package api

import (
	"context"

	"mdqs/internal/market"
)

// The "limit_pools" part of GET /v1/api/quality: EastMoney's published
// pools (push2ex) against the pools mdqs derives, per kind, on the common
// universe (the topic leaves ST and STAR out: those rows are listed
// apart).

type limitPoolDiff struct {
	Code      string  `json:"code"`
	Name      string  `json:"name"`
	Published string  `json:"published"`
	Derived   string  `json:"derived"`
	Off       float64 `json:"off"`
}

type limitPoolField struct {
	Field     string          `json:"field"`
	Compared  int             `json:"compared"`
	Disagree  int             `json:"disagree"`
	Rate      *float64        `json:"rate"`
	Below     int             `json:"below"`
	Missing   int             `json:"missing"`
	Tolerance string          `json:"tolerance"`
	Worst     []limitPoolDiff `json:"worst"`
}

type limitPoolExcluded struct {
	Code      string `json:"code"`
	Name      string `json:"name"`
	Why       string `json:"why"`
	Published bool   `json:"published"`
}

type limitPoolKind struct {
	Kind          string              `json:"kind"`
	Published     int                 `json:"published"`
	Derived       int                 `json:"derived"`
	Both          []string            `json:"both"`
	OnlyPublished []string            `json:"only_published"`
	OnlyDerived   []string            `json:"only_derived"`
	Excluded      []limitPoolExcluded `json:"excluded"`
	Fields        []limitPoolField    `json:"fields"`
}

type limitPoolQuality struct {
	Status     string          `json:"status"`
	Detail     *string         `json:"detail"`
	Source     *string         `json:"source"`
	ImportedAt *string         `json:"imported_at"`
	Kinds      []limitPoolKind `json:"kinds"`
}

// limitPoolQuality compares day's pools; nil when this server derives no
// pools.
func (s *Server) limitPoolQuality(ctx context.Context, day market.Day) (*limitPoolQuality, error) {
	if s.LimitPools == nil {
		return nil, nil
	}
	c, err := s.LimitPools.Compare(ctx, day)
	if err != nil {
		return nil, err
	}
	out := &limitPoolQuality{Status: c.Status, Detail: optional(c.Detail), Source: optional(c.Source), Kinds: []limitPoolKind{}}
	if !c.ImportedAt.IsZero() {
		at := market.FormatTime(c.ImportedAt)
		out.ImportedAt = &at
	}
	for _, k := range c.Kinds {
		item := limitPoolKind{Kind: k.Kind, Published: k.Published, Derived: k.Derived, Both: k.Both, OnlyPublished: k.OnlyPublished,
			OnlyDerived: k.OnlyDerived, Excluded: []limitPoolExcluded{}, Fields: []limitPoolField{}}
		for _, e := range k.Excluded {
			item.Excluded = append(item.Excluded, limitPoolExcluded{Code: e.Code, Name: e.Name, Why: e.Why, Published: e.Published})
		}
		for _, f := range k.Fields {
			lf := limitPoolField{Field: f.Field, Compared: f.Compared, Disagree: f.Disagree, Rate: rateOf(f.Disagree, f.Compared),
				Below: f.Below, Missing: f.Missing, Tolerance: f.Tolerance, Worst: []limitPoolDiff{}}
			for _, d := range f.Worst {
				lf.Worst = append(lf.Worst, limitPoolDiff{Code: d.Code, Name: d.Name, Published: d.Published, Derived: d.Derived, Off: d.Off})
			}
			item.Fields = append(item.Fields, lf)
		}
		out.Kinds = append(out.Kinds, item)
	}
	return out, nil
}
