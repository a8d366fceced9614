package gateway

import (
	"regexp"
	"strconv"
	"strings"
)

var yamlLine = regexp.MustCompile(`line (\d+): (.*)`)

// YAMLError splits an error from decoding a config with yaml.v3 into the
// line it names (0 when it names none) and its message, without the
// decoder's "yaml: " prefix.
func YAMLError(err error) (line int, msg string) {
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n, strings.TrimPrefix(m[2], "yaml: ")
	}
	return 0, strings.TrimPrefix(err.Error(), "yaml: ")
}
