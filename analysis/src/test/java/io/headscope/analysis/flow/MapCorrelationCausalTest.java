package io.headscope.analysis.flow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** A causal model's correlations count only the cells a token can see (below the diagonal). */
class MapCorrelationCausalTest {
  @Test
  void theStructuralZerosAboveTheDiagonalAreNotCounted() {
    // below the diagonal the Jacobian and the map disagree in order; above it both are 0
    double[][] j = {{1, 0, 0}, {3, 1, 0}, {1, 2, 1}};
    double[][] a = {{1, 0, 0}, {1, 1, 0}, {3, 2, 1}};
    MapCorrelation causal = MapCorrelation.of(1, j, a, a, true);
    // cells (1,0), (2,0), (2,1): j = 3, 1, 2 and a = 1, 3, 2: ranks (3,1,2) vs (1,3,2): d = (2,-2,0), 1 - 6*8/(3*8) = -1
    assertThat(causal.spearmanAttention()).isCloseTo(-1.0, within(1e-12));
    MapCorrelation all = MapCorrelation.of(1, j, a, a, false);
    assertThat(all.spearmanAttention()).isGreaterThan(causal.spearmanAttention());
  }
}
