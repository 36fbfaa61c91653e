package demo

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"mdqs/internal/market"
)

var boardCode = regexp.MustCompile(`^BK\d{4}$`)

// checkUniverse checks what any scale must hold.
func checkUniverse(t *testing.T, m *Market, cfg Config) {
	t.Helper()
	stocks := m.Stocks()
	inds, cons := m.Boards(market.Industry), m.Boards(market.Concept)
	if len(stocks) != cfg.Stocks || len(inds) != cfg.Industries || len(cons) != cfg.Concepts {
		t.Fatalf("%d stocks, %d industries, %d concepts; want %d, %d, %d", len(stocks), len(inds), len(cons), cfg.Stocks, cfg.Industries, cfg.Concepts)
	}
	codes, names := map[market.Code]bool{}, map[string]bool{}
	for i, s := range stocks {
		if codes[s.Code] || names[s.Name] {
			t.Fatalf("duplicate code or name: %v %s", s.Code, s.Name)
		}
		codes[s.Code], names[s.Name] = true, true
		if i > 0 && stocks[i-1].Code.String() >= s.Code.String() {
			t.Fatalf("stocks not in code order at %v", s.Code)
		}
		parsed, err := market.ParseCode(s.Code.Symbol)
		if err != nil || parsed != s.Code || market.Classify(s.Code) != market.TypeStock {
			t.Fatalf("%v is not a stock code of its exchange (parsed %v, %v)", s.Code, parsed, err)
		}
		if n := utf8.RuneCountInString(s.Name); n < 3 || n > 7 {
			t.Fatalf("implausible name %q", s.Name)
		}
		if s.FloatShares <= 0 || s.TotalShares < s.FloatShares || s.Listed < 19900101 || s.Listed > anchorDay {
			t.Fatalf("%v: float %d total %d listed %v", s.Code, s.FloatShares, s.TotalShares, s.Listed)
		}
		if len(s.Concepts) > 8 {
			t.Fatalf("%v in %d concepts", s.Code, len(s.Concepts))
		}
	}
	// Every stock in exactly one industry, and the boards agree with the
	// stocks' own lists.
	inInd := map[market.Code]string{}
	allCodes := map[string]bool{}
	indNames := map[string]bool{}
	for _, b := range inds {
		if !boardCode.MatchString(b.Code) || allCodes[b.Code] || b.Kind != market.Industry || len(b.Members) == 0 {
			t.Fatalf("industry %s %s: bad code, duplicate, or no members (%d)", b.Code, b.Name, len(b.Members))
		}
		allCodes[b.Code], indNames[b.Name] = true, true
		for _, c := range b.Members {
			if inInd[c] != "" {
				t.Fatalf("%v in industries %s and %s", c, inInd[c], b.Code)
			}
			inInd[c] = b.Code
		}
	}
	conMembers := map[market.Code][]string{}
	var collisions []string
	for _, b := range cons {
		if !boardCode.MatchString(b.Code) || allCodes[b.Code] || b.Kind != market.Concept {
			t.Fatalf("concept %s %s: bad or duplicate code", b.Code, b.Name)
		}
		allCodes[b.Code] = true
		if len(b.Members) < min(10, cfg.Stocks) {
			t.Fatalf("concept %s %s has %d members", b.Code, b.Name, len(b.Members))
		}
		if indNames[b.Name] {
			collisions = append(collisions, b.Name)
		}
		for _, c := range b.Members {
			conMembers[c] = append(conMembers[c], b.Code)
		}
	}
	today := market.DayOf(m.clock.Now())
	for _, s := range stocks {
		if s.Delisted != 0 && s.Delisted <= today {
			if inInd[s.Code] != "" || len(conMembers[s.Code]) > 0 {
				t.Fatalf("%v, delisted on %v, is still a member of %s %v", s.Code, s.Delisted, inInd[s.Code], conMembers[s.Code])
			}
			continue
		}
		if inInd[s.Code] != s.Industry {
			t.Fatalf("%v: industry %s, board membership says %s", s.Code, s.Industry, inInd[s.Code])
		}
		got := slices.Clone(conMembers[s.Code])
		slices.Sort(got)
		want := slices.Clone(s.Concepts)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("%v: concepts %v, boards say %v", s.Code, want, got)
		}
	}
	slices.Sort(collisions)
	wantColl := m.CollidingNames()
	slices.Sort(wantColl)
	if !slices.Equal(collisions, wantColl) {
		t.Fatalf("names shared by an industry and a concept: %v; CollidingNames says %v", collisions, wantColl)
	}
	for _, n := range collisions {
		if !slices.Contains(collidingConcepts[:], n) {
			t.Fatalf("accidental name collision %q", n)
		}
	}
}

func TestDefaultScaleUniverse(t *testing.T) {
	m, _ := newMarket(t, DefaultConfig(), at(20261120, 16, 0, 0))
	checkUniverse(t, m, DefaultConfig())
	if got := m.CollidingNames(); !slices.Equal(got, []string{"贵金属", "船舶制造"}) {
		t.Fatalf("CollidingNames = %v, want the two deliberate ones", got)
	}
	// The real market's spread over the boards, and its well-known names.
	count := map[listBoard]int{}
	prefixes := map[string]bool{}
	for _, s := range m.u.stocks {
		count[s.lb]++
		prefixes[s.code.Symbol[:2]] = true
	}
	for lb, want := range map[listBoard][2]int{boardMain: {2900, 3400}, boardChiNext: {1150, 1450}, boardSTAR: {450, 650}, boardBJ: {180, 320}} {
		if count[lb] < want[0] || count[lb] > want[1] {
			t.Errorf("board %c has %d stocks, want %d..%d", lb.letter(), count[lb], want[0], want[1])
		}
	}
	for _, p := range []string{"60", "68", "00", "30", "92", "83", "87"} {
		if !prefixes[p] {
			t.Errorf("no stock code starts with %s", p)
		}
	}
	names := map[string]string{}
	for _, s := range m.Stocks() {
		names[s.Code.String()] = s.Name
	}
	for code, name := range map[string]string{"600519.SH": "贵州茅台", "000001.SZ": "平安银行", "300750.SZ": "宁德时代",
		"601318.SH": "中国平安", "688981.SH": "中芯国际", "300059.SZ": "东方财富", "920185.BJ": "贝特瑞"} {
		if names[code] != name {
			t.Errorf("%s is %q, want %q", code, names[code], name)
		}
	}
	banks := 0
	for _, b := range m.Boards(market.Industry) {
		if b.Name != "银行" {
			continue
		}
		for _, c := range b.Members {
			banks++
			if !strings.HasPrefix(c.Symbol, "60") && !strings.HasPrefix(c.Symbol, "00") {
				t.Errorf("bank %v is not on a main board", c)
			}
			if !strings.HasSuffix(names[c.String()], "银行") {
				t.Errorf("bank %v is named %q", c, names[c.String()])
			}
		}
	}
	if banks < 30 {
		t.Errorf("%d banks", banks)
	}
}

func TestScaleConfig(t *testing.T) {
	for _, cfg := range []Config{
		smallConfig(3),
		{Seed: 4, Stocks: 40, Industries: 40, Concepts: 5},
		{Seed: 5, Stocks: 8000, Industries: 200, Concepts: 850},
	} {
		m, _ := newMarket(t, cfg, at(20261120, 16, 0, 0))
		checkUniverse(t, m, cfg)
		snap := sectorsAt(t, m, market.Industry, at(20261120, 15, 0, 0))
		if len(snap.Sectors) != cfg.Industries {
			t.Fatalf("%+v: %d industry sectors", cfg, len(snap.Sectors))
		}
	}
	m, err := New(Config{}, nil)
	if err != nil || len(m.Stocks()) != DefaultConfig().Stocks {
		t.Fatalf("New(Config{}) = %v stocks, %v; want the default scale", len(m.Stocks()), err)
	}
}

func TestInvalidConfig(t *testing.T) {
	for _, cfg := range []Config{
		{Stocks: -1},
		{Stocks: maxStocks + 1},
		{Stocks: 10, Industries: 20},
		{Concepts: maxConcepts() + 1},
		{Concepts: -3},
		{Industries: maxIndustries() + 1},
		{HistoryStart: 20270101},
		{HistoryStart: 19991231},
		{HistoryStart: 20261340},
	} {
		if _, err := New(cfg, nil); market.KindOf(err) != market.KindInvalid {
			t.Errorf("New(%+v) = %v, want an invalid error", cfg, err)
		}
	}
}
