#!/bin/sh
# A worker that deletes a file of its working directory: it removes the
# file its brief's first line names and appends "kept" to a.txt.
read -r line
rm -f -- "$line"
printf 'kept\n' >> a.txt
pwd
exit 0
