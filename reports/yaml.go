package reports

import (
	"encoding/json"
	"io"

	"gopkg.in/yaml.v3"
)

// writeYAML writes a JSON document as YAML, so that both formats share one
// set of field names and one order.
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
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return err
	}
	return enc.Close()
}

// blockStyle drops the flow and quoting styles JSON input gives every node;
// the encoder still quotes strings that would read as numbers.
func blockStyle(n *yaml.Node) {
	n.Style = 0
	for _, c := range n.Content {
		blockStyle(c)
	}
}
