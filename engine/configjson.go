package engine

import (
	"encoding/json"
	"fmt"
	"strings"
)

// UnmarshalJSON reads a Config as MarshalJSON writes it, and as files of
// earlier versions wrote it, with persistent chains as "pcd": true beside
// the sampler: that is the sampler pcd (with the sampler cd or pt, a
// contradiction).
func (c *Config) UnmarshalJSON(b []byte) error {
	type fields Config // without this method
	var v struct {
		fields
		PCD bool `json:"pcd"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*c = Config(v.fields)
	if v.PCD {
		if c.Sampler != "" && c.Sampler != PersistentCD {
			return fmt.Errorf("engine: sampler %q contradicts pcd = true", c.Sampler)
		}
		c.Sampler = PersistentCD
	}
	return nil
}

// names joins the names of values ("a, b, c").
func names[T ~string](values []T) string {
	s := make([]string, len(values))
	for i, v := range values {
		s[i] = string(v)
	}
	return strings.Join(s, ", ")
}
