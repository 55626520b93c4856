/** The contract test kit every lock backend passes. */
@NullMarked
package dev.fencelock.test.contract;

import org.jspecify.annotations.NullMarked;
