package experiment

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/ncg-rbm/ncg/data"
)

// Load reads a Spec's data: training and test sets (test may be nil). A
// data name that is neither a known set nor an existing file, a path that
// is a directory, a -real a set cannot take, or values that do not fit
// -categories, is a *ConfigError naming the setting.
func Load(s Spec, dataDir string) (train, test *data.Set, err error) {
	name, known := s.DataSet()
	if !known {
		if err := checkDataPath("data", s.Data); err != nil {
			return nil, nil, err
		}
	}
	if s.TestData != "" {
		if err := checkDataPath("test-data", s.TestData); err != nil {
			return nil, nil, err
		}
	}
	mode, err := s.RealMode()
	if err != nil {
		return nil, nil, &ConfigError{err}
	}
	if mode != data.RealNone && data.BinaryOnly(name) {
		return nil, nil, &ConfigError{fmt.Errorf("-real %s: data %s is binary; real-valued data are MNIST, IDX images, .npy and CSV files", mode, name)}
	}
	if known && name != "bas" { // read from the data directory
		if err := checkDataDir(dataDir); err != nil {
			return nil, nil, err
		}
	}
	opts := data.Options{Dir: dataDir, Format: s.Format, TestPath: s.TestData, SplitSeed: s.DataSeed, Real: mode}
	if s.Categories != "" {
		c, err := data.ParseCategorical(s.Categories)
		if err != nil {
			return nil, nil, &ConfigError{fmt.Errorf("-categories: %w", err)}
		}
		opts.Categorical = c
	}
	opts.Binarization.Seed = s.DataSeed
	train, test, err = data.Load(s.Data, opts)
	if errors.Is(err, data.ErrCategories) {
		return nil, nil, &ConfigError{fmt.Errorf("-categories %s: %w", opts.Categorical, err)}
	}
	return train, test, err
}

// checkDataDir refuses, as a *ConfigError naming -data-dir (or NCG_DATA),
// a data directory given that does not exist or is not a directory.
func checkDataDir(dataDir string) error {
	what := "-data-dir " + dataDir
	if dataDir == "" {
		if dataDir = os.Getenv("NCG_DATA"); dataDir == "" {
			return nil // the user cache directory, where data fetch puts the sets
		}
		what = "NCG_DATA=" + dataDir
	}
	st, err := os.Stat(dataDir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return &ConfigError{fmt.Errorf("%s: no such directory ('ncgbench data fetch -data-dir DIR' fills one)", what)}
	case err == nil && !st.IsDir():
		return &ConfigError{fmt.Errorf("%s is a file, not a data directory", what)}
	}
	return nil // other errors (permission) are the reader's to report
}

// checkDataPath refuses, as a *ConfigError naming the setting, a data file
// path that does not exist, is a directory or is not a regular file.
func checkDataPath(setting, path string) error {
	st, err := os.Stat(path)
	switch {
	case path == "":
		return &ConfigError{fmt.Errorf("%s: empty name: give one of %s or a file", setting, strings.Join(data.Names, ", "))}
	case errors.Is(err, os.ErrNotExist) && setting == "data":
		return &ConfigError{fmt.Errorf("data: %q is neither a known data set (%s) nor a file", path, strings.Join(data.Names, ", "))}
	case errors.Is(err, os.ErrNotExist):
		return &ConfigError{fmt.Errorf("%s: no file %s", setting, path)}
	case err == nil && st.IsDir():
		return &ConfigError{fmt.Errorf("%s: %s is a directory, not a data file", setting, path)}
	case err == nil && !st.Mode().IsRegular(): // a FIFO would block the reader for ever
		return &ConfigError{fmt.Errorf("%s: %w", setting, data.NotRegularError(path, st.Mode()))}
	}
	return nil // other errors (permission) are the reader's to report
}
