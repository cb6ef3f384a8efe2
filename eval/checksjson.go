package eval

import (
	"encoding/json"
	"math"
)

// The JSON forms of the checks (a run's result.json, ncgbench eval -json):
// snake_case keys, and null for a number that is not finite (JSON has no
// NaN or infinity): an AIS lower bound of −Inf, the ESS and SE of the
// exact value, a disagreement the verdict did not measure. null reads
// back as NaN.

// num is a float64 whose JSON form is null when it is not finite.
type num float64

func (v num) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(v))
}

func (v *num) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*v = num(math.NaN())
		return nil
	}
	return json.Unmarshal(b, (*float64)(v))
}

type estimateJSON struct {
	Route     Route `json:"route"`
	LogZ      num   `json:"log_z"`
	LogZLo    num   `json:"log_z_lo"`
	LogZHi    num   `json:"log_z_hi"`
	ESS       num   `json:"ess"`
	SE        num   `json:"se"`
	Runs      int   `json:"runs,omitempty"`
	Intervals int   `json:"intervals,omitempty"`
}

// MarshalJSON writes the estimate with snake_case keys, null for a value
// that is not finite.
func (e Estimate) MarshalJSON() ([]byte, error) {
	return json.Marshal(estimateJSON{e.Route, num(e.LogZ), num(e.LogZLo), num(e.LogZHi), num(e.ESS), num(e.SE), e.Runs, e.Intervals})
}

// UnmarshalJSON reads what MarshalJSON wrote (null as NaN).
func (e *Estimate) UnmarshalJSON(b []byte) error {
	var j estimateJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*e = Estimate{j.Route, float64(j.LogZ), float64(j.LogZLo), float64(j.LogZHi), float64(j.ESS), float64(j.SE), j.Runs, j.Intervals}
	return nil
}

type verdictJSON struct {
	Fired        bool   `json:"fired"`
	Against      Route  `json:"against,omitempty"`
	Disagreement num    `json:"disagreement"`
	Reason       string `json:"reason"`
}

// MarshalJSON writes the verdict with snake_case keys (disagreement null
// when it was not measured).
func (v Verdict) MarshalJSON() ([]byte, error) {
	return json.Marshal(verdictJSON{v.Fired, v.Against, num(v.Disagreement), v.Reason})
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (v *Verdict) UnmarshalJSON(b []byte) error {
	var j verdictJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*v = Verdict{j.Fired, j.Against, float64(j.Disagreement), j.Reason}
	return nil
}

type bdmcJSON struct {
	Rows      int    `json:"rows"`
	Intervals int    `json:"intervals"`
	Seed      uint64 `json:"seed"`
	LogZLower num    `json:"log_z_lower"`
	LogZUpper num    `json:"log_z_upper"`
	Gap       num    `json:"gap"`
	LogPLower num    `json:"log_p_lower"`
	LogPUpper num    `json:"log_p_upper"`
	LogZ      num    `json:"log_z_exact"`
}

// MarshalJSON writes the result with snake_case keys.
func (r BDMCResult) MarshalJSON() ([]byte, error) {
	return json.Marshal(bdmcJSON{r.Rows, r.Intervals, r.Seed, num(r.LogZLower), num(r.LogZUpper), num(r.Gap), num(r.LogPLower), num(r.LogPUpper), num(r.LogZ)})
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (r *BDMCResult) UnmarshalJSON(b []byte) error {
	var j bdmcJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*r = BDMCResult{Rows: j.Rows, Intervals: j.Intervals, Seed: j.Seed, LogZLower: float64(j.LogZLower), LogZUpper: float64(j.LogZUpper),
		Gap: float64(j.Gap), LogPLower: float64(j.LogPLower), LogPUpper: float64(j.LogPUpper), LogZ: float64(j.LogZ)}
	return nil
}
