// SPDX-License-Identifier: Apache-2.0
// A handle's settings, shared with the plans created from it and read at
// every call, so a change also applies to plans made before it.
#pragma once

namespace spgemm {

struct Settings {
  // Whether analysis checks the CSR structure of the inputs first
  // (spgemmSetInputChecks).
  bool input_checks = true;
  // Debug option: numeric phases verify that A's, B's and D's structure is
  // the one analyzed (spgemmSetVerifyStructure).
  bool verify_structure = false;
  // What spgemmSetDeterministic set, for spgemmGetDeterministic. Both
  // backends add every entry's terms in a fixed order whatever it holds.
  bool deterministic = true;
};

}  // namespace spgemm
