// Package repotest holds checks on the repository as a whole, across every
// module in it, such as the size limit on Go files (CONTRIBUTING.md: files
// do one thing; every file <= 600 lines).
package repotest
