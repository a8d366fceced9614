package tariffs

import "fmt"

// ServiceTier is the processing tier a call was served in. Standard is the
// tier of a version's prices; the others have their own rates where the
// version lists them under service_tiers.
type ServiceTier uint8

// Service tiers. The numbering matches ledger.ServiceTier.
const (
	Standard ServiceTier = iota
	Batch
	Flex
	Priority
	NumServiceTiers = int(Priority) + 1
)

var serviceNames = [NumServiceTiers]string{"standard", "batch", "flex", "priority"}

// String returns the tier's name as written in tariff files.
func (s ServiceTier) String() string {
	if int(s) < NumServiceTiers {
		return serviceNames[s]
	}
	return fmt.Sprintf("service_tier(%d)", s)
}

// ParseServiceTier returns the service tier named s.
func ParseServiceTier(s string) (ServiceTier, error) {
	for i, n := range serviceNames {
		if n == s {
			return ServiceTier(i), nil
		}
	}
	return 0, fmt.Errorf("unknown service tier %q (want batch, flex or priority)", s)
}
