/**
 * The faults of the campaign, each injected, held and healed against a {@link
 * dev.fencelock.verification.fault.FaultTarget}, which logs its window.
 */
@NullMarked
package dev.fencelock.verification.fault;

import org.jspecify.annotations.NullMarked;
