package litellm

// Rules returns the name of every rule Check may report, as findings and
// acceptance comments (gateway.Accept) name them.
func Rules() []string {
	return []string{RuleUntariffed, RuleUntariffedHost, RulePriceFormat, RulePriceBounds, RuleZeroPrice,
		RuleNoCustom, RuleInconsistent, RuleOffPeak, RuleOffPeakDates, RuleHealthCheck, RuleCooldown,
		RuleRateLimit, RulePrivateFall, RulePrivateAlias, RulePrivateAddr}
}
