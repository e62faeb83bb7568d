"""The test suite, a package so that every test module imports the shared support
(tests/support/) as `tests.support…` by an ordinary import. A regular package, not a
namespace: an installed distribution ships a top-level `tests` package of its own,
which would otherwise be found first."""
