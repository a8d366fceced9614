package reports

import (
	"encoding/json"
	"io"
	"regexp"

	"gopkg.in/yaml.v3"

	"github.com/tokenfare/tokenfare/reports/textout"
)

// writeYAML writes a JSON document as YAML, so that both formats share one
// set of field names and one order. A failed write is returned as the
// writer's own error (a closed pipe stays syscall.EPIPE for errors.Is):
// the encoder would turn it into text.
func writeYAML(w io.Writer, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return err
	}
	blockStyle(&doc)
	out := &textout.Writer{W: w}
	enc := yaml.NewEncoder(out)
	enc.SetIndent(2)
	err = enc.Encode(&doc)
	if err == nil {
		err = enc.Close()
	}
	if out.Err != nil {
		return out.Err
	}
	return err
}

// blockStyle drops the flow and quoting styles JSON input gives every node;
// the encoder still quotes strings that would read as numbers in YAML 1.2.
// A string a YAML 1.1 reader (PyYAML, which LiteLLM and many scripts use)
// would read as something else — yes, off, ~, 1_000, 0o17, 1:20, a date —
// is double-quoted: key_alias: "yes" stays the key alias, not True.
func blockStyle(n *yaml.Node) {
	n.Style = 0
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" && yaml11NotString(n.Value) {
		n.Style = yaml.DoubleQuotedStyle
	}
	for _, c := range n.Content {
		blockStyle(c)
	}
}

// yaml11Scalar matches plain scalars YAML 1.1 resolves to a type other
// than a string (https://yaml.org/type/: bool, null, int, float,
// timestamp, merge and value keys; checked 2026-12-01), and the YAML 1.2
// octal 0o17, in any case.
var yaml11Scalar = regexp.MustCompile(`(?i)^(?:` +
	`y|yes|n|no|true|false|on|off` + // bool
	`|~|null|` + // null, the empty scalar too
	`|[-+]?0b[01_]+|[-+]?0o?[0-7_]+|[-+]?0x[0-9a-f_]+|[-+]?(?:0|[1-9][0-9_]*)` + // int: binary, octal, hex, decimal
	`|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?` + // sexagesimal int and float: 1:20, 190:20:30.15
	`|[-+]?(?:[0-9][0-9_]*)?\.[0-9_]*(?:e[-+]?[0-9]+)?|[-+]?[0-9][0-9_]*e[-+]?[0-9]+` + // float
	`|[-+]?\.inf|\.nan` + // infinity, not a number
	`|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::?[0-9]{2})?))?)?` + // timestamp
	`|<<|=` + // merge and value keys
	`)$`)

// yaml11NotString reports whether a YAML 1.1 reader would read the plain
// scalar s as anything but the string s.
func yaml11NotString(s string) bool {
	return yaml11Scalar.MatchString(s)
}
