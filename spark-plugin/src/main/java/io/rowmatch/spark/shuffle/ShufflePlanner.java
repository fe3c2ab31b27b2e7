package io.rowmatch.spark.shuffle;

import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.exchange.ShuffleExchangeExec;

import io.rowmatch.spark.arrow.ArrowSettings;
import io.rowmatch.spark.config.RowmatchConf;
import io.rowmatch.spark.rules.FallbackReasons;

/**
 * Decides whether a shuffle that feeds a Rowmatch operator moves Arrow batches (RowmatchShuffleExchange)
 * instead of rows. Only shuffles under Rowmatch operators are replaced: there both sides of the shuffle
 * want Arrow, while a vanilla consumer would only get its rows back through another conversion.
 */
public final class ShufflePlanner {
  private ShufflePlanner() {}

  /** The replacement, or the exchange itself (tagged with the reason it stays). */
  public static SparkPlan replace(ShuffleExchangeExec exchange, RowmatchConf conf) {
    if (!conf.shuffleEnabled()) {
      FallbackReasons.record(exchange, RowmatchConf.SHUFFLE_ENABLED + " is false", conf);
      return exchange;
    }
    String reason = SparkPartitionIds.unsupportedReason(exchange.outputPartitioning());
    if (reason == null) {
      reason = ShuffleColumns.unsupportedReason(exchange.child().schema());
    }
    if (reason != null) {
      FallbackReasons.record(exchange, reason, conf);
      return exchange;
    }
    RowmatchShuffleExchangeExec replaced = new RowmatchShuffleExchangeExec(exchange.outputPartitioning(),
        exchange.child(), exchange.shuffleOrigin(), exchange.advisoryPartitionSize(), ArrowSettings.of(conf));
    replaced.copyTagsFrom(exchange);
    return replaced;
  }
}
