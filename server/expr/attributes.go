package expr

// Attributes lists the top-level attributes a condition reads, in source
// order, each once.
func (c *Condition) Attributes() []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range c.root.leaves(nil) {
		for _, o := range l.operands() {
			if o.kind != opPath {
				continue
			}
			if n := o.path.Attribute(); !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	return out
}
