package screener

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/vm"

	"mdqs/internal/market"
)

// MaxExpressionLen bounds an expression's text.
const MaxExpressionLen = 4096

// Program is a compiled, type-checked expression and the fields it reads.
type Program struct {
	prog   *vm.Program
	Fields []string
	steps  float64 // estimated VM steps per stock (estimateCost)
}

// collector gathers the identifiers an expression names.
type collector struct{ names []string }

func (c *collector) Visit(node *ast.Node) {
	if id, ok := (*node).(*ast.IdentifierNode); ok && !slices.Contains(c.names, id.Value) {
		if _, known := field(id.Value); known {
			c.names = append(c.names, id.Value)
		}
	}
}

// Compile parses and type-checks an expression against Row: it must be a
// boolean over known fields. A mistake is an invalid-parameter error that
// says where (line and column) and why.
func Compile(src string) (*Program, error) {
	if strings.TrimSpace(src) == "" {
		return nil, market.Errorf(market.KindInvalid, "expression is required, e.g. close > ma20 && turnover > 3")
	}
	if len(src) > MaxExpressionLen {
		return nil, market.Errorf(market.KindInvalid, "expression is %d bytes; at most %d", len(src), MaxExpressionLen)
	}
	c := &collector{}
	steps, err := checkCost(src)
	if err != nil {
		return nil, err
	}
	prog, err := expr.Compile(src, expr.Env(Row{}), expr.AsBool(), expr.MaxNodes(2000), expr.Patch(c),
		expr.DisableBuiltin("now"), expr.DisableBuiltin("date"))
	if err != nil {
		var fe *file.Error
		if errors.As(err, &fe) {
			return nil, market.Errorf(market.KindInvalid, "expression error at line %d, column %d: %s (fields: GET /v1/api/screener/fields)",
				fe.Line, fe.Column+1, fe.Message)
		}
		return nil, market.Errorf(market.KindInvalid, "expression error: %v", err)
	}
	return &Program{prog: prog, Fields: c.names, steps: steps}, nil
}

// checkEvery is how many stocks a screen evaluates between checks of its
// deadline and cancellation: about a million VM steps between checks, so
// a costly expression (up to MaxCostPerRow a stock) is stopped within
// tens of milliseconds, and a cheap one pays nothing for checking.
func (p *Program) checkEvery() int {
	if p.steps <= 0 {
		return 256
	}
	return int(min(256, max(1, 1e6/p.steps)))
}

// run evaluates the program on a row with a reusable VM.
func (p *Program) run(m *vm.VM, r *Row) (bool, error) {
	out, err := m.Run(p.prog, r)
	if err != nil {
		return false, fmt.Errorf("evaluating %s: %w", r.Code, err)
	}
	b, _ := out.(bool)
	return b, nil
}
