// Package areatest is the httpmock transport the tests of the area
// packages and of package client share, with assertions on the requests
// and validation errors the SDK produces. Only tests import it.
package areatest
