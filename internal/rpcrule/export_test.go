package rpcrule

// Describe reads a method's declarations as load does, for descriptors
// the tests build.
var Describe = describe
