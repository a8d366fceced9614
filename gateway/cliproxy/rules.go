package cliproxy

// Rules returns the name of every rule Check may report, as findings and
// acceptance comments (gateway.Accept) name them.
func Rules() []string { return []string{RuleSingleKeyCooling, RuleGlobalCoolingOff} }
