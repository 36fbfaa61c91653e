package screener

import (
	"math"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"

	"mdqs/internal/market"
)

// MaxCostPerRow bounds what one stock's evaluation may do. expr has no way
// to interrupt its VM, and nested loops multiply: `let r = 1..1000;
// all(r, all(r, all(r, # > -1)))` is a billion steps on every stock (58 s
// each), which no timeout or cancel could stop once started (issue 20).
// Every practical screen is far below: comparisons cost a few steps, a
// loop over a stock's concepts a few hundred.
const MaxCostPerRow = 20_000

// maxListField is the length assumed for a list field of a stock (its
// concepts): a stock is in a few dozen concept sectors at most.
const maxListField = 200

// unknownLen is the length assumed for a list whose length cannot be told
// before running (a range with computed bounds): large enough that a loop
// over it alone passes and a loop inside a loop over it does not.
const unknownLen = 10_000

// predicateBuiltins run their second argument once per element.
var predicateBuiltins = map[string]bool{"all": true, "none": true, "any": true, "one": true, "filter": true, "map": true,
	"find": true, "findIndex": true, "findLast": true, "findLastIndex": true, "count": true, "sum": true,
	"groupBy": true, "sortBy": true, "reduce": true}

// estimateCost is an upper bound of the VM steps one evaluation of src
// takes, from its syntax: loops multiply their body by the length of what
// they loop over. It is checked at submission, so a screen that would
// occupy a worker without end is refused with a 400 instead.
func estimateCost(src string) (float64, error) {
	tree, err := parser.Parse(src)
	if err != nil {
		return 0, nil // Compile reports syntax errors with their position
	}
	c, _ := cost(tree.Node, map[string]float64{})
	return c, nil
}

// cost is the steps of n and, when n is a list, its length (-1: not a list).
func cost(n ast.Node, vars map[string]float64) (steps, length float64) {
	switch n := n.(type) {
	case nil:
		return 0, -1
	case *ast.IdentifierNode:
		if l, ok := vars[n.Value]; ok {
			return 1, l
		}
		if f, ok := field(n.Value); ok && f.Type == "list of strings" {
			return 1, maxListField
		}
		return 1, -1
	case *ast.ArrayNode:
		s := 1.0
		for _, e := range n.Nodes {
			es, _ := cost(e, vars)
			s += es
		}
		return s, float64(len(n.Nodes))
	case *ast.BinaryNode:
		ls, ll := cost(n.Left, vars)
		rs, rl := cost(n.Right, vars)
		switch n.Operator {
		case "..":
			l := float64(unknownLen)
			if a, ok := intConst(n.Left); ok {
				if b, ok := intConst(n.Right); ok {
					l = math.Max(b-a+1, 0)
				}
			}
			return ls + rs + l, l
		case "in", "not in":
			return ls + rs + math.Max(rl, 0), -1
		}
		_ = ll
		return ls + rs + 1, -1
	case *ast.BuiltinNode:
		if predicateBuiltins[n.Name] && len(n.Arguments) >= 2 {
			as, al := cost(n.Arguments[0], vars)
			if al < 0 {
				al = unknownLen
			}
			body := 0.0
			for _, a := range n.Arguments[1:] {
				bs, _ := cost(a, vars)
				body += bs
			}
			l := -1.0
			if n.Name == "filter" || n.Name == "map" || n.Name == "sortBy" {
				l = al
			}
			return as + al*(body+1), l
		}
		s, l := 1.0, -1.0
		for i, a := range n.Arguments {
			as, al := cost(a, vars)
			s += as
			if al > 0 {
				s += al // len, sort, join, max, ... walk their list once
				if i == 0 {
					l = al
				}
			}
		}
		return s, l
	case *ast.PredicateNode:
		return cost(n.Node, vars)
	case *ast.VariableDeclaratorNode:
		vs, vl := cost(n.Value, vars)
		inner := make(map[string]float64, len(vars)+1)
		for k, v := range vars {
			inner[k] = v
		}
		if vl >= 0 {
			inner[n.Name] = vl
		} else {
			delete(inner, n.Name)
		}
		es, el := cost(n.Expr, inner)
		return vs + es, el
	}
	// Every other node: itself plus its children, none of them a loop.
	steps = 1
	length = -1
	for _, c := range children(n) {
		cs, _ := cost(c, vars)
		steps += cs
	}
	return steps, length
}

// children are a node's sub-expressions, for the nodes cost does not
// treat itself.
func children(n ast.Node) []ast.Node {
	switch n := n.(type) {
	case *ast.UnaryNode:
		return []ast.Node{n.Node}
	case *ast.ChainNode:
		return []ast.Node{n.Node}
	case *ast.MemberNode:
		return []ast.Node{n.Node, n.Property}
	case *ast.SliceNode:
		return []ast.Node{n.Node, n.From, n.To}
	case *ast.CallNode:
		return append([]ast.Node{n.Callee}, n.Arguments...)
	case *ast.ConditionalNode:
		return []ast.Node{n.Cond, n.Exp1, n.Exp2}
	case *ast.SequenceNode:
		return n.Nodes
	case *ast.MapNode:
		return n.Pairs
	case *ast.PairNode:
		return []ast.Node{n.Key, n.Value}
	}
	return nil
}

// intConst is the value of an integer literal (or its negation).
func intConst(n ast.Node) (float64, bool) {
	switch n := n.(type) {
	case *ast.IntegerNode:
		return float64(n.Value), true
	case *ast.UnaryNode:
		if v, ok := intConst(n.Node); ok && n.Operator == "-" {
			return -v, true
		}
	}
	return 0, false
}

// checkCost refuses an expression whose estimated cost per stock is over
// MaxCostPerRow.
func checkCost(src string) (float64, error) {
	c, err := estimateCost(src)
	if err != nil {
		return 0, err
	}
	if c > MaxCostPerRow {
		return c, market.Errorf(market.KindInvalid, "expression too costly: up to %.3g steps per stock, at most %d; "+
			"a loop inside a loop multiplies (all(1..1000, all(1..1000, ...)) is a million steps on each of 5,000 stocks): "+
			"loop over short lists, or write the conditions out", c, MaxCostPerRow)
	}
	return c, nil
}
