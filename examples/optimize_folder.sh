#!/usr/bin/env sh
# Pre-optimize a folder of SQL files before submitting them to Spark.
#
#   sh examples/optimize_folder.sh [OUT_DIR]
#
# Reads examples/queries/ (never modified), writes the optimized files under OUT_DIR with
# the same relative names, and prints a summary; findings (likely mistakes, such as
# `country = NULL`) go to stderr with their file, line and column.
set -eu
here=$(dirname "$0")
out=${1:-optimized-queries}
sparkfold optimize -f "$here/queries" --schema "$here/schema.json" --out "$out"
