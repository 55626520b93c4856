package dev.fencelock.docs;

import dev.fencelock.LockAcquisitionTimeoutException;
import dev.fencelock.LockLostException;

/** README.md, "Quick start (Spring Boot)": a caller of the locked method. */
class OrderShippingCaller {

    private final OrderShipping shipping;

    OrderShippingCaller(OrderShipping shipping) {
        this.shipping = shipping;
    }

    public String shipNow(long orderId) {
        try {
            this.shipping.ship(orderId);
            return "shipped";
        } catch (LockAcquisitionTimeoutException busy) {
            // Another instance held order:<id> for the whole wait timeout: nothing was done.
            return "busy, try again later";
        } catch (LockLostException lost) {
            // The message says whether anything committed; retry only when nothing did.
            return "lock lost: " + lost.getMessage();
        }
    }
}
