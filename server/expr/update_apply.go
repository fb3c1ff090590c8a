package expr

import (
	"sort"

	"github.com/dynamopg/dynamopg/server/attr"
)

// Apply returns the item the update makes of item (nil for an item that does
// not exist yet). The input is never modified.
//
// As in the service, every value is computed from the item as it was before
// the update; then SET, ADD and DELETE are applied in path order (so list
// indexes past the end append in index order), then REMOVE in reverse path
// order (so the indexes of one REMOVE refer to the list as it was).
func (u *Update) Apply(item attr.Item) (attr.Item, error) {
	vals := make([]attr.Value, len(u.actions))
	for i, a := range u.actions {
		if a.val == nil {
			continue
		}
		v, err := a.val.updateValue(item)
		if err != nil {
			return nil, err
		}
		// Values read from the input item share its maps and slices; the
		// result must not.
		vals[i] = v.Clone()
	}
	order := make([]int, len(u.actions))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(x, y int) bool {
		a, b := u.actions[order[x]], u.actions[order[y]]
		if (a.verb == "REMOVE") != (b.verb == "REMOVE") {
			return b.verb == "REMOVE"
		}
		if a.verb == "REMOVE" {
			return a.path.compare(b.path) > 0
		}
		return a.path.compare(b.path) < 0
	})
	out := item.Clone()
	if out == nil {
		out = attr.Item{}
	}
	for _, i := range order {
		a, v := u.actions[i], vals[i]
		var op leafOp
		switch a.verb {
		case "SET":
			op = func(attr.Value, bool) (attr.Value, bool, *Error) { return v, true, nil }
		case "REMOVE":
			op = func(attr.Value, bool) (attr.Value, bool, *Error) { return attr.Value{}, false, nil }
		case "ADD":
			op = func(old attr.Value, exists bool) (attr.Value, bool, *Error) { return add(old, exists, v) }
		case "DELETE":
			op = func(old attr.Value, exists bool) (attr.Value, bool, *Error) { return deleteFrom(old, exists, v) }
		}
		if err := modifyItem(out, a.path, op); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// updateValue computes a SET value, an ADD or DELETE operand.
func (o *operand) updateValue(item attr.Item) (attr.Value, *Error) {
	switch o.kind {
	case opValue:
		return o.val, nil
	case opPath:
		v, ok := o.path.Get(item)
		if !ok {
			return attr.Value{}, errf(MsgAttributeMissing)
		}
		return v, nil
	}
	args := o.call.args
	if o.call.name == "if_not_exists" {
		if v, ok := args[0].path.Get(item); ok {
			return v, nil
		}
		return args[1].updateValue(item)
	}
	a, err := args[0].updateValue(item)
	if err != nil {
		return attr.Value{}, err
	}
	b, err := args[1].updateValue(item)
	if err != nil {
		return attr.Value{}, err
	}
	switch o.call.name {
	case "list_append":
		if a.T != attr.TypeL || b.T != attr.TypeL {
			return attr.Value{}, errf(MsgIncorrectDataType)
		}
		l := make([]attr.Value, 0, len(a.L)+len(b.L))
		l = append(append(l, a.L...), b.L...)
		return attr.List(l), nil
	default: // + and -
		if a.T != attr.TypeN || b.T != attr.TypeN {
			return attr.Value{}, errf(MsgIncorrectDataType)
		}
		n, aerr := attr.AddNumbers(a.S, b.S, o.call.name == "-")
		if aerr != nil {
			return attr.Value{}, errf("%s", aerr.Msg)
		}
		return attr.Num(n), nil
	}
}

// add is ADD: numbers are summed, sets joined; a missing attribute takes the
// operand as it is.
func add(old attr.Value, exists bool, v attr.Value) (attr.Value, bool, *Error) {
	if !exists {
		return v, true, nil
	}
	switch {
	case old.T == attr.TypeN && v.T == attr.TypeN:
		n, err := attr.AddNumbers(old.S, v.S, false)
		if err != nil {
			return attr.Value{}, false, errf("%s", err.Msg)
		}
		return attr.Num(n), true, nil
	case old.IsSet() && old.T == v.T:
		return setUnion(old, v), true, nil
	}
	return attr.Value{}, false, errf(MsgIncorrectDataType)
}

// deleteFrom is DELETE: members leave the set, and a set left empty is
// removed. Deleting from a missing attribute does nothing.
func deleteFrom(old attr.Value, exists bool, v attr.Value) (attr.Value, bool, *Error) {
	if !exists {
		return attr.Value{}, false, nil
	}
	if !old.IsSet() || old.T != v.T {
		return attr.Value{}, false, errf(MsgIncorrectDataType)
	}
	rest := setDifference(old, v)
	return rest, rest.SetLen() > 0, nil
}

// leafOp computes the new value at a path from the old one; keep=false
// removes it.
type leafOp func(old attr.Value, exists bool) (v attr.Value, keep bool, err *Error)

// modifyItem applies op at path in item, which it changes in place (Apply
// hands it a deep copy). Every step but the last must exist with the right
// type, else the path is invalid for update.
func modifyItem(item attr.Item, p Path, op leafOp) *Error {
	name := p[0].Name
	old, exists := item[name]
	if len(p) == 1 {
		v, keep, err := op(old, exists)
		if err != nil {
			return err
		}
		if keep {
			item[name] = v
		} else {
			delete(item, name)
		}
		return nil
	}
	if !exists {
		return errf(MsgInvalidUpdatePath)
	}
	v, err := modifyValue(old, p[1:], op)
	if err != nil {
		return err
	}
	item[name] = v
	return nil
}

func modifyValue(c attr.Value, p Path, op leafOp) (attr.Value, *Error) {
	e := p[0]
	if !e.IsIndex {
		if c.T != attr.TypeM {
			return c, errf(MsgInvalidUpdatePath)
		}
		old, exists := c.M[e.Name]
		if len(p) > 1 {
			if !exists {
				return c, errf(MsgInvalidUpdatePath)
			}
			v, err := modifyValue(old, p[1:], op)
			if err != nil {
				return c, err
			}
			c.M[e.Name] = v
			return c, nil
		}
		v, keep, err := op(old, exists)
		if err != nil {
			return c, err
		}
		if keep {
			c.M[e.Name] = v
		} else {
			delete(c.M, e.Name)
		}
		return c, nil
	}
	if c.T != attr.TypeL {
		return c, errf(MsgInvalidUpdatePath)
	}
	exists := e.Index < len(c.L)
	if len(p) > 1 {
		if !exists {
			return c, errf(MsgInvalidUpdatePath)
		}
		v, err := modifyValue(c.L[e.Index], p[1:], op)
		if err != nil {
			return c, err
		}
		c.L[e.Index] = v
		return c, nil
	}
	var old attr.Value
	if exists {
		old = c.L[e.Index]
	}
	v, keep, err := op(old, exists)
	if err != nil {
		return c, err
	}
	switch {
	case exists && keep:
		c.L[e.Index] = v
	case exists:
		c.L = append(c.L[:e.Index:e.Index], c.L[e.Index+1:]...)
	case keep:
		// An index past the end appends: the service does not pad lists.
		c.L = append(c.L, v)
	}
	return c, nil
}
