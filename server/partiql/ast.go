package partiql

// Kind is the kind of a statement.
type Kind uint8

// The statement kinds DynamoDB runs.
const (
	Select Kind = iota + 1
	Insert
	Update
	Delete
	Exists // EXISTS(SELECT ...), a condition check in ExecuteTransaction
)

func (k Kind) String() string {
	switch k {
	case Select:
		return "SELECT"
	case Insert:
		return "INSERT"
	case Update:
		return "UPDATE"
	case Delete:
		return "DELETE"
	case Exists:
		return "EXISTS"
	}
	return "?"
}

// Statement is one parsed statement.
type Statement struct {
	Kind  Kind
	Table string
	Index string // SELECT FROM "table"."index"; "" for the table

	// SELECT
	Star       bool   // SELECT *
	Projection []Path // SELECT a, b.c[1]
	OrderBy    []Order

	Where Expr // nil when absent

	// INSERT
	Value Expr

	// UPDATE
	Sets    []Assign
	Removes []Path

	// Returning is UPDATE's or DELETE's RETURNING clause: "ALL OLD",
	// "ALL NEW", "MODIFIED OLD", "MODIFIED NEW"; "" when absent.
	Returning string

	// Params is the number of ? in the statement.
	Params int
}

// Order is one ORDER BY term.
type Order struct {
	Name string
	Desc bool
}

// Assign is one SET of UPDATE.
type Assign struct {
	Path  Path
	Value Expr
}

// PathElem is one step of a path: a name or a list index.
type PathElem struct {
	Name    string
	Index   int
	IsIndex bool
}

// Path is a document path; its first element is a name.
type Path []PathElem

// Expr is a node of an expression.
type Expr interface{ expr() }

// Literal kinds.
const (
	LitString = iota
	LitNumber
	LitBool
	LitNull
	LitMissing
)

type (
	// Lit is a scalar literal.
	Lit struct {
		Kind int
		Text string // string value, number text
		Bool bool
	}
	// Param is the N-th ? (from 0).
	Param struct{ N int }
	// PathExpr is a document path.
	PathExpr struct{ Path Path }
	// ListExpr is [a, b].
	ListExpr struct{ Items []Expr }
	// BagExpr is <<a, b>> (a set).
	BagExpr struct{ Items []Expr }
	// MapExpr is {'k': v}.
	MapExpr struct {
		Keys []Expr
		Vals []Expr
	}
	// Neg is -x.
	Neg struct{ X Expr }
	// Binary is L op R: AND OR = <> < <= > >= + -.
	Binary struct {
		Op   string
		L, R Expr
	}
	// Not is NOT X.
	Not struct{ X Expr }
	// Between is X [NOT] BETWEEN Lo AND Hi.
	Between struct {
		X, Lo, Hi Expr
		Not       bool
	}
	// In is X [NOT] IN [list].
	In struct {
		X    Expr
		List []Expr
		Not  bool
	}
	// Is is X IS [NOT] TYPE (MISSING, NULL, STRING...).
	Is struct {
		X    Expr
		Type string
		Not  bool
	}
	// Call is name(args), name lower-cased.
	Call struct {
		Name string
		Args []Expr
	}
)

func (Lit) expr()      {}
func (Param) expr()    {}
func (PathExpr) expr() {}
func (ListExpr) expr() {}
func (BagExpr) expr()  {}
func (MapExpr) expr()  {}
func (Neg) expr()      {}
func (Binary) expr()   {}
func (Not) expr()      {}
func (Between) expr()  {}
func (In) expr()       {}
func (Is) expr()       {}
func (Call) expr()     {}
