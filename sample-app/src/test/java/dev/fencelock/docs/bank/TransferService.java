package dev.fencelock.docs.bank;

import org.springframework.stereotype.Service;

/** Moves money between two accounts while this instance holds both accounts' locks. */
@Service
public class TransferService {

    private final AccountLock accountLock;

    private final Ledger ledger;

    public TransferService(AccountLock accountLock, Ledger ledger) {
        this.accountLock = accountLock;
        this.ledger = ledger;
    }

    public long transfer(long from, long to, long amount) {
        // Always the lower account first: two opposite transfers then never wait for each other.
        long first = Math.min(from, to);
        long second = Math.max(from, to);
        return this.accountLock.underLock(
                first, () -> this.accountLock.underLock(second, () -> this.ledger.move(from, to, amount)));
    }
}
