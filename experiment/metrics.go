package experiment

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"slices"
	"strconv"

	"github.com/ncg-rbm/ncg/engine"
	"github.com/ncg-rbm/ncg/eval"
)

// Metrics is one row of metrics.csv. NaN marks "not measured this epoch".
type Metrics struct {
	// Epoch counts the run's epochs from 1: a deep model's pre-training
	// epochs of each RBM in turn, then a DBM's joint epochs
	// (Spec.TotalEpochs).
	Epoch int
	// Layer is a deep model's phase in the epoch: the RBM in pre-training
	// (1-based), or 0 in a DBM's joint training; 0 for an RBM. The
	// density and degrees of a pre-training epoch are its RBM's, of a
	// joint epoch the bottom RBM's.
	Layer                     int
	Seconds                   float64 // training time of the epoch
	NLL, LogZ, LogZLo, LogZHi float64
	TrainAcc, TestAcc         float64
	Density                   float64
	DegreeMin                 int
	DegreeMean                float64
	DegreeMax                 int
	Recon                     float64
}

// trainedRow is the row of run epoch n (phase layer) that the engine's
// record of it gives: its time, connectivity and reconstruction error,
// nothing evaluated yet.
func trainedRow(n, layer int, r engine.Record) Metrics {
	return Metrics{Epoch: n, Layer: layer, Seconds: r.Seconds, NLL: nan, LogZ: nan, LogZLo: nan, LogZHi: nan, TrainAcc: nan, TestAcc: nan,
		Density: r.Density, DegreeMin: r.DegreeMin, DegreeMean: r.DegreeMean, DegreeMax: r.DegreeMax, Recon: r.ReconError}
}

// Columns of metrics.csv, in order. A deep model's metrics.csv has one
// more, LayerColumn, last.
var Columns = []string{"epoch", "seconds", "nll", "log_z", "log_z_lo", "log_z_hi", "train_acc", "test_acc",
	"density", "degree_min", "degree_mean", "degree_max", "recon_error"}

// LayerColumn is the column of Metrics.Layer in a deep model's
// metrics.csv (and its key in JSON, where it is left out when 0).
const LayerColumn = "layer"

// layered reports whether rows are a deep model's, whose metrics.csv has
// LayerColumn: every deep run's first epoch pre-trains RBM 1.
func layered(rows []Metrics) bool {
	return slices.ContainsFunc(rows, func(m Metrics) bool { return m.Layer != 0 })
}

// values lists the row in Columns order.
func (m Metrics) values() []float64 {
	return []float64{float64(m.Epoch), m.Seconds, m.NLL, m.LogZ, m.LogZLo, m.LogZHi, m.TrainAcc, m.TestAcc,
		m.Density, float64(m.DegreeMin), m.DegreeMean, float64(m.DegreeMax), m.Recon}
}

func fromValues(v []float64) Metrics {
	return Metrics{Epoch: int(v[0]), Seconds: v[1], NLL: v[2], LogZ: v[3], LogZLo: v[4], LogZHi: v[5], TrainAcc: v[6], TestAcc: v[7],
		Density: v[8], DegreeMin: int(v[9]), DegreeMean: v[10], DegreeMax: int(v[11]), Recon: v[12]}
}

func (m Metrics) row(layer bool) []string {
	out := make([]string, len(Columns), len(Columns)+1)
	for k, v := range m.values() {
		out[k] = strconv.FormatFloat(v, 'g', 8, 64)
	}
	if layer {
		out = append(out, strconv.Itoa(m.Layer))
	}
	return out
}

// Value returns the metric of the named column (NaN if unknown).
func (m Metrics) Value(column string) float64 {
	for k, c := range Columns {
		if c == column {
			return m.values()[k]
		}
	}
	return math.NaN()
}

// MarshalJSON writes the metrics as an object keyed by column, with null
// for a metric not measured (JSON has no NaN).
func (m Metrics) MarshalJSON() ([]byte, error) {
	obj := make(map[string]*float64, len(Columns))
	for k, v := range m.values() {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			obj[Columns[k]] = &v
		} else {
			obj[Columns[k]] = nil
		}
	}
	if m.Layer != 0 {
		l := float64(m.Layer)
		obj[LayerColumn] = &l
	}
	return json.Marshal(obj)
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (m *Metrics) UnmarshalJSON(b []byte) error {
	var obj map[string]*float64
	if err := json.Unmarshal(b, &obj); err != nil {
		return err
	}
	v := make([]float64, len(Columns))
	for k, c := range Columns {
		v[k] = math.NaN()
		if p := obj[c]; p != nil {
			v[k] = *p
		}
	}
	*m = fromValues(v)
	if p := obj[LayerColumn]; p != nil {
		m.Layer = int(*p)
	}
	return nil
}

// setEval fills the metrics of an evaluation; test_acc is the measured
// set's accuracy only when that is a test set.
func (m *Metrics) setEval(ev *eval.Metrics, hasTest bool) {
	m.NLL, m.LogZ, m.LogZLo, m.LogZHi = ev.NLL, ev.LogZ, ev.LogZLo, ev.LogZHi
	m.TrainAcc = ev.TrainAccuracy
	if hasTest {
		m.TestAcc = ev.Accuracy
	}
}

var nan = math.NaN()

// Summary is a one-line summary of the metrics measured.
func (m Metrics) Summary() string {
	s := fmt.Sprintf("density %.3f  degree %d/%.1f/%d  recon %.4f", m.Density, m.DegreeMin, m.DegreeMean, m.DegreeMax, m.Recon)
	if !math.IsNaN(m.NLL) {
		s += fmt.Sprintf("  nll %.3f (log Z %.3f)", m.NLL, m.LogZ)
	}
	if !math.IsNaN(m.TrainAcc) {
		s += fmt.Sprintf("  acc train %.4f", m.TrainAcc)
	}
	if !math.IsNaN(m.TestAcc) {
		s += fmt.Sprintf(" test %.4f", m.TestAcc)
	}
	return s
}

// WriteMetrics writes metrics.csv atomically.
func WriteMetrics(path string, rows []Metrics) error {
	return engine.WriteAtomic(path, func(w io.Writer) error {
		cw := csv.NewWriter(w)
		layer := layered(rows)
		if layer {
			cw.Write(append(slices.Clone(Columns), LayerColumn))
		} else {
			cw.Write(Columns)
		}
		for _, r := range rows {
			cw.Write(r.row(layer))
		}
		cw.Flush()
		return cw.Error()
	})
}

// ReadMetrics reads metrics.csv; errors name the file and line.
func ReadMetrics(path string) ([]Metrics, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	deep := append(slices.Clone(Columns), LayerColumn)
	if len(recs) == 0 || (!reflect.DeepEqual(recs[0], Columns) && !reflect.DeepEqual(recs[0], deep)) {
		return nil, fmt.Errorf("%s: line 1: header is not %v (or that and %s)", path, Columns, LayerColumn)
	}
	n := len(recs[0])
	var out []Metrics
	for i, r := range recs[1:] {
		if len(r) != n {
			return nil, fmt.Errorf("%s: line %d: %d fields, want %d", path, i+2, len(r), n)
		}
		v := make([]float64, len(Columns))
		for k := range v {
			var err error
			if v[k], err = strconv.ParseFloat(r[k], 64); err != nil {
				return nil, fmt.Errorf("%s: line %d, column %s: %w", path, i+2, Columns[k], err)
			}
		}
		m := fromValues(v)
		if n > len(Columns) {
			l, err := strconv.Atoi(r[n-1])
			if err != nil || l < 0 || l > engine.MaxStackLayers {
				return nil, fmt.Errorf("%s: line %d, column %s: %q is not a layer from 0 to %d", path, i+2, LayerColumn, r[n-1], engine.MaxStackLayers)
			}
			m.Layer = l
		}
		out = append(out, m)
	}
	return out, nil
}
