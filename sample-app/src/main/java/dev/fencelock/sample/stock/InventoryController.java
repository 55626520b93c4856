package dev.fencelock.sample.stock;

import java.util.Objects;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** The API over several SKUs: transfers between two, and the summary of all. */
@RestController
@RequestMapping("/api")
class InventoryController {

    private final StockTransfers transfers;

    private final StockService stock;

    InventoryController(StockTransfers transfers, StockService stock) {
        this.transfers = transfers;
        this.stock = stock;
    }

    @PostMapping("/stock-transfers")
    Transfer transfer(@RequestBody TransferRequest request) {
        String from = request.from();
        String to = request.to();
        Integer quantity = request.quantity();
        if (from == null || to == null || Objects.equals(from, to)) {
            throw new InvalidRequestException("from and to must be two different SKUs");
        }
        StockController.checkSku(from);
        StockController.checkSku(to);
        if (quantity == null || quantity < 1) {
            throw new InvalidRequestException("quantity must be 1 or more, was " + quantity);
        }
        return this.transfers.transfer(from, to, quantity);
    }

    @GetMapping("/stock-summary")
    StockSummary summary() {
        return this.stock.summary();
    }
}
