package market

import "testing"

func TestParseCode(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"600519.SH", "600519.SH"},
		{"600519.sh", "600519.SH"},
		{"sh600519", "600519.SH"},
		{"SZ000001", "000001.SZ"},
		{"000001", "000001.SZ"}, // Ping An Bank, not the SSE Composite
		{"300750", "300750.SZ"},
		{"688001", "688001.SH"},
		{"430047", "430047.BJ"},
		{"920002", "920002.BJ"}, // Beijing's current range, before the 9 -> SH rule
		{"880301", "880301.SH"}, // terminal block index, before the 8 -> BJ rule
		{"899050", "899050.BJ"},
		{"510300", "510300.SH"},
		{"159915", "159915.SZ"},
		{"113011", "113011.SH"},
		{"1.600000", "600000.SH"},
		{"0.000001", "000001.SZ"},
		{"0.430047", "430047.BJ"},
		{"0.688001", "688001.SZ"}, // secid 0 is never SH
		{" 600000.SH ", "600000.SH"},
	}
	for _, tt := range tests {
		got, err := ParseCode(tt.in)
		if err != nil || got.String() != tt.want {
			t.Errorf("ParseCode(%q) = %v, %v; want %s", tt.in, got, err, tt.want)
		}
	}
}

func TestParseCodeRejects(t *testing.T) {
	for _, in := range []string{"", "60051", "6005190", "600519.HK", "ab0519", "60051x.SH", "hk600519", "2.600519", "600519SH"} {
		if c, err := ParseCode(in); err == nil {
			t.Errorf("ParseCode(%q) = %v, want an error", in, c)
		}
	}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		code string
		want SecurityType
	}{
		{"600000.SH", TypeStock}, {"688001.SH", TypeStock}, {"000001.SZ", TypeStock}, {"300750.SZ", TypeStock},
		{"430047.BJ", TypeStock}, {"920002.BJ", TypeStock},
		{"000001.SH", TypeIndex}, {"399001.SZ", TypeIndex}, {"899050.BJ", TypeIndex},
		{"880301.SH", TypeBlock}, {"881478.SH", TypeBlock},
		{"510300.SH", TypeFund}, {"159915.SZ", TypeFund}, {"160105.SZ", TypeFund},
		{"113011.SH", TypeBond}, {"123002.SZ", TypeBond},
		{"900901.SH", TypeBShare}, {"200011.SZ", TypeBShare},
		{"204001.SH", TypeRepo}, {"131810.SZ", TypeRepo},
		// Codes whose range says one thing and the terminal's data another.
		{"880006.SH", TypeStatistic}, {"880016.SH", TypeStatistic}, {"880026.SH", TypeStatistic}, {"880036.SH", TypeStatistic},
		// SZ 395xxx are the terminal's statistics of the Shenzhen market
		// (395001 主板Ａ股, whose "close" is a count of stocks: 455 on
		// 2020-10-30), not indices; 395004's and 395013's 2010 days hold
		// lows of 0.
		{"395001.SZ", TypeStatistic}, {"395004.SZ", TypeStatistic}, {"395013.SZ", TypeStatistic}, {"399006.SZ", TypeIndex},
		{"880001.SH", TypeBlock},
		{"751001.SH", TypeBond},
		{"140001.SZ", TypePreferred}, {"149001.SZ", TypeBond},
		{"190001.SZ", TypeABS}, {"191001.SZ", TypeABS},
	}
	for _, tt := range tests {
		if got := Classify(MustCode(tt.code)); got != tt.want {
			t.Errorf("Classify(%s) = %s, want %s", tt.code, got, tt.want)
		}
	}
}

func TestSecurityTypesCoverClassify(t *testing.T) {
	known := map[SecurityType]bool{}
	for _, typ := range SecurityTypes() {
		known[typ] = true
	}
	for _, c := range []string{"600000.SH", "000001.SH", "880006.SH", "880301.SH", "510300.SH", "113011.SH", "204001.SH",
		"900901.SH", "140001.SZ", "190001.SZ", "751001.SH", "700001.SH"} {
		if typ := Classify(MustCode(c)); !known[typ] {
			t.Errorf("Classify(%s) = %s, not in SecurityTypes", c, typ)
		}
	}
}
