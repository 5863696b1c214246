module github.com/rdmalab/rdmalab

go 1.26
