package io.headscope.model.engine;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The chunk sizes a long input's layer runs in, worked out by hand from their rules: a summarised layer's
 * attention 1M cells of scores at a time (four heads at 512 tokens; one head and 512 query rows at 2,048), and the MLP 512 token rows at a time where its
 * widest array would pass 6M cells (24 MB), every row at once below that.
 */
class BertEncoderChunksTest {
  @Test
  void aTinyLlamaAt2048TokensRunsItsMlpIn512RowsAndItsAttentionIn512RowsOfOneHead() {
    // the gate and up products, alive together: 2 x 5,632 = 11,264 wide; 6M / 11,264 = 558 rows, down to a multiple of 64
    assertThat(BertEncoder.mlpRowsPerChunk(1, 2048, 2 * 5632)).isEqualTo(512);
    // 1M cells of scores: one head of 2,048 x 2,048 does not fit, so one head a chunk; 1M cells of rows: 512
    assertThat(BertEncoder.headsPerChunk(1, 2048, 32)).isEqualTo(1);
    assertThat(BertEncoder.rowsPerChunk(1, 2048, 1)).isEqualTo(512);
  }

  @Test
  void at512TokensFourHeadsShareAChunkAndItsRowsAreNotSplit() {
    // 1M / (512 x 512) = 4 heads: Qwen2.5-0.5B's 14 heads in chunks of 4, 4, 4 and 2; Pythia-160M's 12 in three
    assertThat(BertEncoder.headsPerChunk(1, 512, 14)).isEqualTo(4);
    assertThat(BertEncoder.headsPerChunk(1, 512, 12)).isEqualTo(4);
    assertThat(BertEncoder.rowsPerChunk(1, 512, 4)).isEqualTo(512);
    // a batch of two shares the cells: 2 heads; and a layer with fewer heads than fit runs them all at once
    assertThat(BertEncoder.headsPerChunk(2, 512, 14)).isEqualTo(2);
    assertThat(BertEncoder.headsPerChunk(1, 128, 12)).isEqualTo(12);
  }

  @Test
  void inputsWhoseMlpFitsRunItWhole() {
    assertThat(BertEncoder.mlpRowsPerChunk(1, 512, 3072)).isEqualTo(512); // bert-base at 512 tokens: 1.6M cells
    assertThat(BertEncoder.mlpRowsPerChunk(1, 512, 2 * 4864)).isEqualTo(512); // Qwen2.5-0.5B at 512: 5.0M cells
    assertThat(BertEncoder.mlpRowsPerChunk(1, 2048, 3072)).isEqualTo(2048); // Pythia-160M at 2,048: 6,291,456 cells, 6M exactly
  }

  @Test
  void aBatchSharesTheChunksCellsAmongItsInputs() {
    // four inputs of 2,048 tokens: 6M / (4 x 11,264) = 139 rows, down to 128
    assertThat(BertEncoder.mlpRowsPerChunk(4, 2048, 2 * 5632)).isEqualTo(128);
    // below 64 rows the count is kept as it is: 6M / (16 x 11,264) = 34 rows
    assertThat(BertEncoder.mlpRowsPerChunk(16, 2048, 2 * 5632)).isEqualTo(34);
    // and never below one row
    assertThat(BertEncoder.mlpRowsPerChunk(1024, 2048, 2 * 5632)).isEqualTo(1);
  }
}
