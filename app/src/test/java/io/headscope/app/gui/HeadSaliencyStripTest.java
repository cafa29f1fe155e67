package io.headscope.app.gui;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.analysis.saliency.Baseline;
import io.headscope.analysis.saliency.SaliencyMetric;
import io.headscope.analysis.saliency.TokenSaliency;
import io.headscope.app.gui.exec.DirectWorker;
import io.headscope.app.gui.head.HeadViewModel;
import io.headscope.app.gui.lens.LensViewModel;
import io.headscope.app.gui.main.MainViewModel;
import io.headscope.app.render.HeadMatrix.PairFilter;
import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.TinyBert;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The head view's saliency strip: the Logit lens screen's scores for the same tokens, computed again here
 * with the analysis itself; gone, with a note, once the input changes, and back when it is that input again.
 */
class HeadSaliencyStripTest {
  @TempDir Path dir;

  @Test
  void theStripIsTheSaliencyOfTheShownTokensAndGoesStaleWithTheInput() {
    Path tiny = TinyBert.create(2, 2, 5).writeTo(dir.resolve("tiny")).config().getParent();
    MainViewModel main = new MainViewModel(new DirectWorker(), new ModelRepository(dir.resolve("cache")));
    String text = "the king said that [MASK] was in paris .";
    main.textAProperty().set(text);
    main.loadModel(tiny.toString());
    main.analyse();
    main.select(new Head(1, 1));
    HeadViewModel head = new HeadViewModel(main.session());
    assertThat(head.stripProperty().get()).isNull();
    assertThat(head.stripNoteProperty().get()).isEmpty();

    LensViewModel lens = new LensViewModel(main.session());
    lens.targetProperty().set("she");
    lens.contrastProperty().set("he");
    lens.run();
    assertThat(lens.resultProperty().get()).as(lens.statusProperty().get()).isNotNull();
    BertModel m = main.session().model();
    var input = main.session().trace().encoding();
    double[] want = new TokenSaliency(m).gradientTimesInput(input, SaliencyMetric.of(m.tokenizer().singleTokenId("she"),
        m.tokenizer().singleTokenId("he")), Baseline.MASK).scores();
    HeadViewModel.SaliencyStrip strip = head.stripProperty().get();
    assertThat(strip).isNotNull();
    assertThat(strip.values()).containsExactly(want); // one per key column, the same tokens
    assertThat(head.matrixProperty().get().colTokens()).isEqualTo(input.tokens());
    double max = 0;
    for (double v : want) {
      max = Math.max(max, Math.abs(v));
    }
    assertThat(strip.max()).isEqualTo(max);
    assertThat(head.stripNoteProperty().get()).contains("grad-x-input").contains("she").contains("he");
    // the hover over a key names its saliency
    head.pointAt(0, 5);
    assertThat(head.hoverProperty().get()).contains(String.format(java.util.Locale.ROOT, "%+.4f", want[5]));

    // over words: one value per word, the sum of its pieces' scores (the grouping the map itself uses)
    head.wordsProperty().set(true);
    var words = io.headscope.analysis.linguistics.WordAttention.of(input.tokens());
    double[] perWord = new double[words.words().size()];
    for (int i = 0; i < want.length; i++) {
      perWord[words.wordOf()[i]] += want[i];
    }
    assertThat(head.stripProperty().get().values()).containsExactly(perWord);
    assertThat(head.matrixProperty().get().colTokens()).isEqualTo(words.words());
    head.wordsProperty().set(false);

    // another input: the scores are not its tokens'; the strip goes and the note says why
    main.textAProperty().set("the queen said that [MASK] was in rome .");
    main.analyse();
    assertThat(head.stripProperty().get()).isNull();
    assertThat(head.stripNoteProperty().get()).contains("earlier input");
    // the same input again: the same scores belong to it
    main.textAProperty().set(text);
    main.analyse();
    assertThat(head.stripProperty().get().values()).containsExactly(want);

    // a pair filtered to the second sentence's keys: the strip covers those columns only
    main.textBProperty().set("she was late .");
    main.analyse();
    assertThat(head.stripProperty().get()).isNull(); // a pair is another input
    lens.run();
    var pair = main.session().trace().encoding();
    double[] pairScores = main.session().saliency().result().scores();
    head.filterProperty().set(PairFilter.A_B);
    int b = pair.secondStart();
    assertThat(head.stripProperty().get().values())
        .containsExactly(java.util.Arrays.copyOfRange(pairScores, b, pairScores.length));
  }
}
