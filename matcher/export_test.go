package matcher

// Fault is the first ERROR or MISSING node of the tree the reading p came
// from, "" when there is none (tests check every searched reading is clean).
func (p *Pattern) Fault() string { return p.fault }
