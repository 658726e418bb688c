#pragma once
// JSON tables as a DataTable: what experiment trackers export (a Weights & Biases runs table, one
// run per object) becomes the same named columns of text as a CSV, so everything downstream (the
// columns chosen, --where, --drop-missing) reads it alike.
//
// Each run is an object; nested objects are flattened with dots ({"config": {"lr": 1e-3}} is the
// column "config.lr"); the header is the union of the keys in the order first seen, and a key a run
// lacks is a missing cell. Values become text: numbers as their shortest text that reads back to
// the same double, strings as they are, null as a missing cell, booleans as "true" and "false",
// arrays as their JSON text (not a number, so a column of them cannot be fitted). NaN, Infinity
// and -Infinity written bare (as Python's json module does) are read as the text "NaN" (missing)
// and "Infinity" (infinite). Nesting is bounded (kMaxJsonDepth), and so is the table's size.
#include <string>

#include "scalinglab/fit/data_table.hpp"

namespace scalinglab::fit {

// A JSON file holding one of:
//   {"columns": [names...], "data": [[values...], ...]}  wandb.Table's JSON (and pandas'
//                                                        to_json(orient="split"));
//   [{...}, {...}]                                       one object per run (pandas'
//                                                        to_json(orient="records"));
//   {"data": [{...}, ...], ...}                          pandas' to_json(orient="table").
// A row's line (DataTable::lines) is its index in the list, from 1. Throws InputError naming the
// file (and the row) on anything else.
DataTable parse_json_table(const std::string& text, const std::string& source);

// JSON lines: one object per line (blank lines skipped). A row's line is its line in the file.
DataTable parse_jsonl_table(const std::string& text, const std::string& source);

}  // namespace scalinglab::fit
