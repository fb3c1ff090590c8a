package partiql

import "github.com/dynamopg/dynamopg/server/attr"

// CheckOrdering refuses an ordering comparison (<, <=, >, >=, BETWEEN) with
// a constant operand whose type has no order: only S, N and B do. The
// service checks this on the statement, before it looks the table up
// (measured: nubo-db/dynamodb-conformance tests/tier2/partiql/comparison and
// tests/tier3/validation-ordering/partiql).
func (st *Statement) CheckOrdering(params []attr.Value) error {
	if st.Where == nil {
		return nil
	}
	return checkOrdering(st.Where, NewCompiler(params))
}

func checkOrdering(e Expr, c *Compiler) error {
	switch x := e.(type) {
	case Binary:
		switch x.Op {
		case "AND", "OR":
			if err := checkOrdering(x.L, c); err != nil {
				return err
			}
			return checkOrdering(x.R, c)
		case "<", "<=", ">", ">=":
			return unorderedOperand(x.Op, c, x.L, x.R)
		}
	case Not:
		return checkOrdering(x.X, c)
	case Between:
		return unorderedOperand("BETWEEN", c, x.X, x.Lo, x.Hi)
	}
	return nil
}

// unorderedOperand is the refusal of the first constant operand of op
// whose type has no order.
func unorderedOperand(op string, c *Compiler, operands ...Expr) error {
	for _, o := range operands {
		if !IsConst(o) {
			continue
		}
		v, err := c.Const(o)
		if err != nil {
			continue // the compiler reports it
		}
		switch v.T {
		case attr.TypeS, attr.TypeN, attr.TypeB:
			continue
		}
		return &Error{Msg: "Incorrect operand type for operator or function; operator or function: " + op + ", operand type: " + v.T.String()}
	}
	return nil
}
