package dev.fencelock.docs.bank;

import dev.fencelock.annotation.DistributedLock;
import org.springframework.stereotype.Service;

/** Moves money between two accounts while this instance holds both accounts' locks. */
@Service
public class TransferService {

    private final Ledger ledger;

    public TransferService(Ledger ledger) {
        this.ledger = ledger;
    }

    // Both locks, taken in one order whatever the direction: opposite transfers never wait for each other.
    @DistributedLock(
            keys = {"'account:' + #from", "'account:' + #to"},
            waitTimeout = "5s")
    public long transfer(long from, long to, long amount) {
        return this.ledger.move(from, to, amount);
    }
}
