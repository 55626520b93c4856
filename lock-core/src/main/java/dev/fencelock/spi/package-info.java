/** The backend SPI: the one interface a lock store implements. */
@NullMarked
package dev.fencelock.spi;

import org.jspecify.annotations.NullMarked;
