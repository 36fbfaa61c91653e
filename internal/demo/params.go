package demo

import "math"

// A stock's name and model parameters, drawn from streams keyed by the
// seed and its code only.

// companyName draws an unused name of an industry style.
func companyName(ns *stream, style string, used map[string]bool) string {
	ends := nameEndings(style)
	city := style == "bank" || style == "broker" || style == "insure" || style == "fin"
	for try := 0; ; try++ {
		var stem string
		if city {
			stem = cityStems[ns.intn(len(cityStems))]
		} else {
			a, b := stemFirst[ns.intn(len(stemFirst))], stemSecond[ns.intn(len(stemSecond))]
			if a == b {
				continue
			}
			stem = a + b
		}
		if city && try > 40 {
			// The city stems ran out for this style: fall back to the
			// generic stems.
			stem = stemFirst[ns.intn(len(stemFirst))] + stemSecond[ns.intn(len(stemSecond))]
		}
		name := stem + ends[ns.intn(len(ends))]
		if try > 200 {
			name += symbolOf(try)[4:] // never reached at the supported scales
		}
		if !used[name] {
			return name
		}
	}
}

// Factor volatilities: daily standard deviations of the market, industry
// and concept factors.
const (
	mktVol = 0.0095
	indVol = 0.008
	conVol = 0.006
)

// setParams draws a stock's model parameters from its own stream, so they
// depend on the seed and code only.
func setParams(s *stock, spec industrySpec) {
	ns := newStream(s.key, 2)
	switch s.lb {
	case boardMain:
		s.limit = 10
		if s.st {
			s.limit = 5
		}
	case boardChiNext, boardSTAR:
		s.limit = 20
	default:
		s.limit = 30
	}
	var shares, sigma, turn, jump, px float64
	switch s.lb {
	case boardMain:
		shares, sigma, turn, jump, px = 4e8, 0.014, 1.4, 0.018, 1.0
	case boardChiNext:
		shares, sigma, turn, jump, px = 2.2e8, 0.019, 3.2, 0.016, 1.3
	case boardSTAR:
		shares, sigma, turn, jump, px = 1.6e8, 0.021, 2.4, 0.014, 1.6
	default:
		shares, sigma, turn, jump, px = 0.7e8, 0.025, 3.4, 0.014, 1.0
	}
	switch spec.style {
	case "bank":
		shares *= 12
	case "insure":
		shares *= 8
	case "broker":
		shares *= 4
	case "power", "coal", "oil", "steel", "transport":
		shares *= 2.5
	}
	z1, z2, z3 := ns.norm(), ns.norm(), ns.norm()
	if s.fs == 0 {
		s.fs = max(5_000_000, int64(mul(shares, ratio(z1, 1.0))/1e4)*1e4)
		s.total = int64(mul(float64(s.fs), ns.between(1.0, 1.35))/1e4) * 1e4
	}
	s.fsF = float64(s.fs)
	if s.base == 0 {
		price := clampF(mul(mul(spec.price, px), ratio(z2, 0.8)), 2.0, 800)
		s.base = roundCents(mul(price, 100))
	}
	risk := spec.risk
	s.sigma = mul(mul(sigma, risk), ns.between(0.75, 1.3))
	s.beta = ns.between(0.75, 1.25)
	if risk < 0.7 {
		s.beta = mul(s.beta, 0.7)
	}
	s.gamma = ns.between(0.7, 1.2)
	s.jumpP = jump
	if s.st {
		s.sigma = mul(s.sigma, 1.2)
		s.jumpP = 0.03
	}
	s.sigMin = s.sigma / math.Sqrt(240)
	s.turn = clampF(mul(mul(turn, risk), ratio(z3, 0.5)), 0.08, 15)
	if mul(s.fsF, float64(s.base)) > 5e12 { // float cap above 50 billion yuan
		s.turn = mul(s.turn, 0.35)
	}
	valuation(s, &ns, finStyleOf(spec.style))
}

// valuation draws the stock's P/E, net margin and book value from its
// industry style (a well-known stock keeps its own P/E and margin): its
// earnings are price / P/E, its revenue earnings / margin (finance.go).
// A loss-maker trades at 0.5-6 times its revenue, which sets its margin.
func valuation(s *stock, ns *stream, fs finStyle) {
	price := float64(s.base) / 100
	loss := s.st || ns.unit() < fs.loss
	if s.pe == 0 {
		if loss {
			s.pe = -ns.between(15, 250)
		} else {
			s.pe = ns.between(fs.pe[0], fs.pe[1])
		}
	}
	if s.net == 0 {
		if s.pe < 0 {
			s.net = -ns.between(0.5, 6) / -s.pe * 100
		} else {
			s.net = ns.between(fs.net[0], fs.net[1])
		}
	}
	pb := ns.between(0.8, 6)
	if s.pe > 0 {
		pb = clampF(mul(s.pe, ns.between(fs.roe[0], fs.roe[1])/100), 0.3, 20)
	}
	s.eps = price / s.pe
	s.bvps = price / pb
}
