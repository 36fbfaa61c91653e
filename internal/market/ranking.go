package market

// RankedSector is one entry of a ranking list (spec 2.3).
type RankedSector struct {
	SectorName string  `json:"sector_name"`
	Count      int     `json:"count"`
	Pct        float64 `json:"pct"`
	Turnover   float64 `json:"turnover"`
	MainNet    float64 `json:"main_net"`
	Flow       string  `json:"flow"`
	Signal     string  `json:"signal"`
	SignalRank int     `json:"signal_rank"`
	FlowTag    string  `json:"flow_tag"`
	Rank       int     `json:"rank"`
}

// The six lists of a ranking, as stored in the daily ranking table.
const (
	ListIndustry    = "industry"
	ListConcept     = "concept"
	ListIndustryOut = "industry_out"
	ListConceptOut  = "concept_out"
	ListSectors     = "sectors"
	ListSectorsOut  = "sectors_out"
)

// ListTypes is every list in response order.
func ListTypes() []string {
	return []string{ListIndustry, ListConcept, ListIndustryOut, ListConceptOut, ListSectors, ListSectorsOut}
}

// Ranking is the day's sector ranking by main-force net inflow (spec 4.3).
type Ranking struct {
	TS          int64          `json:"ts"`
	Day         string         `json:"day"`
	Source      string         `json:"source"`
	UpdatedMS   int64          `json:"updated_ms"`
	Industry    []RankedSector `json:"industry"`
	Concept     []RankedSector `json:"concept"`
	IndustryOut []RankedSector `json:"industry_out"`
	ConceptOut  []RankedSector `json:"concept_out"`
	Sectors     []RankedSector `json:"sectors"`
	SectorsOut  []RankedSector `json:"sectors_out"`
}

// List returns the list of a type.
func (r *Ranking) List(listType string) []RankedSector {
	switch listType {
	case ListIndustry:
		return r.Industry
	case ListConcept:
		return r.Concept
	case ListIndustryOut:
		return r.IndustryOut
	case ListConceptOut:
		return r.ConceptOut
	case ListSectors:
		return r.Sectors
	case ListSectorsOut:
		return r.SectorsOut
	}
	return nil
}

// SetList replaces the list of a type.
func (r *Ranking) SetList(listType string, l []RankedSector) {
	switch listType {
	case ListIndustry:
		r.Industry = l
	case ListConcept:
		r.Concept = l
	case ListIndustryOut:
		r.IndustryOut = l
	case ListConceptOut:
		r.ConceptOut = l
	case ListSectors:
		r.Sectors = l
	case ListSectorsOut:
		r.SectorsOut = l
	}
}
