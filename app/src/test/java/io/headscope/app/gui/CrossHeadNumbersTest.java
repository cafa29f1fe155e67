package io.headscope.app.gui;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.headscope.analysis.heads.LayerTokenTypes;
import io.headscope.analysis.heads.TokenType;
import io.headscope.app.gui.exec.DirectWorker;
import io.headscope.app.gui.main.MainViewModel;
import io.headscope.app.gui.main.facts.HeadFactsViewModel;
import io.headscope.app.gui.session.HeadMeasure;
import io.headscope.model.core.AttentionKind;
import io.headscope.model.core.Head;
import io.headscope.model.encoderdecoders.EncoderDecoderFolders;
import io.headscope.model.repository.ModelRepository;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The cross kind's per-head numbers in the app (issue 41): with a T5 or BART folder open and Cross shown, the head
 * panel's token types, the per-layer chart and the ranking's measures are each head's numbers over its target
 * query rows and source keys, as the encoder and decoder kinds have theirs. Every expected value is worked out
 * here in float64 from the cross maps themselves, by the definitions in METHODS ("Encoder-decoders"): the largest
 * weight, the mean row entropy, and the mean over target rows of the weight on the source's first token, on its
 * {@code </s>}, on punctuation and on the rest.
 *
 * <p>Bounds: the summaries sum each key's column in double and round the mean to float (relative 2^-24); a type's
 * share adds at most n such keys of weight at most 1, so n 2^-24 bounds it (doubled for the layer means); the
 * entropy is rounded once to float, under log(n) 2^-24 relative; the largest weight is one of the map's floats.
 */
class CrossHeadNumbersTest {
  @TempDir static Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"t5", "bart"})
  void crossHeadsPublishTheirNumbersOverTargetRowsAndSourceKeys(String type) {
    Path folder = EncoderDecoderFolders.write(type, dir.resolve(type), 23);
    MainViewModel main = new MainViewModel(new DirectWorker(), new ModelRepository(dir.resolve("cache")));
    HeadFactsViewModel facts = new HeadFactsViewModel(main);
    main.textAProperty().set(EncoderDecoderFolders.source(type));
    // T5's target cut to three words, so that its cross maps are not square (BART's already are not)
    main.textBProperty().set(type.equals("t5") ? "a cat sat" : EncoderDecoderFolders.target(type));
    main.loadModel(folder.toString());
    main.encoderDecoder().setKind(AttentionKind.ENCODER);
    main.encoderDecoder().setKind(AttentionKind.CROSS);
    var two = main.session().twoStacks();
    assertThat(two.intact()).as(main.statusProperty().get()).isNotNull();
    float[][][][] cross = two.intact().cross();
    List<String> source = two.intact().source().tokens();
    int n = source.size();
    assertThat(source.get(n - 1)).as("both families end the source with </s>").isEqualTo("</s>");
    assertThat(two.intact().target().tokens().size()).as("a cross map is not square here").isNotEqualTo(n);

    HeadMeasure sink = main.session().measures().get(MainViewModel.SINK);
    HeadMeasure entropy = main.session().measures().get(MainViewModel.ENTROPY);
    HeadMeasure largest = main.session().measures().get(MainViewModel.LARGEST);
    HeadMeasure end = main.session().measures().get(MainViewModel.END);
    assertThat(java.util.Arrays.asList(sink, entropy, largest, end)).as("cross publishes its numbers").doesNotContainNull();
    assertThat(end.name()).isEqualTo("End token's share (</s>)");
    double shareBound = n * Math.pow(2, -24);
    int layers = cross.length;
    int heads = cross[0].length;
    for (int l = 0; l < layers; l++) {
      double[] layerMean = new double[4];
      for (int h = 0; h < heads; h++) {
        float[][] m = cross[l][h];
        int rows = m.length;
        double[] want = new double[4]; // first source token, </s>, punctuation, other
        double ent = 0;
        float top = 0;
        for (float[] row : m) {
          assertThat(row).hasSize(n);
          for (int j = 0; j < n; j++) {
            TokenType t = TokenType.of(source.get(j));
            int at = j == 0 ? 0 : t == TokenType.SEP ? 1 : t == TokenType.PUNCT ? 2 : 3;
            want[at] += row[j] / (double) rows;
            ent -= row[j] > 0 ? row[j] * Math.log(row[j]) / rows : 0;
            top = Math.max(top, row[j]);
          }
        }
        String at = type + " cross " + (l + 1) + "-" + (h + 1);
        assertThat(sink.values()[l][h]).as(at).isCloseTo(want[0], within(shareBound));
        assertThat(end.values()[l][h]).as(at).isCloseTo(want[1], within(shareBound));
        assertThat(entropy.values()[l][h]).as(at).isCloseTo(ent, within(Math.log(n) * Math.pow(2, -24) + 1e-12));
        assertThat(largest.values()[l][h]).as(at).isEqualTo(top);

        main.select(new Head(l, h));
        HeadFactsViewModel.FirstToken f = facts.firstTokenProperty().get();
        assertThat(f).as(at).isNotNull();
        assertThat(f.cross()).isTrue();
        assertThat(f.endName()).isEqualTo("</s>");
        for (int i = 0; i < 4; i++) {
          assertThat(f.shares()[i]).as(at + " share " + i).isCloseTo(want[i], within(shareBound));
          layerMean[i] += want[i] / heads;
        }
        assertThat(f.entropy()).isCloseTo(ent, within(Math.log(n) * Math.pow(2, -24) + 1e-12));
        assertThat(f.largest()).isEqualTo(top);
      }
      LayerTokenTypes chart = facts.layersProperty().get(l);
      assertThat(chart.norm()).isNull();
      assertThat(chart.weight().cls()).isCloseTo(layerMean[0], within(2 * shareBound));
      assertThat(chart.weight().sep()).isCloseTo(layerMean[1], within(2 * shareBound));
      assertThat(chart.weight().punct()).isCloseTo(layerMean[2], within(2 * shareBound));
      assertThat(chart.weight().other()).isCloseTo(layerMean[3], within(2 * shareBound));
    }
    assertThat(facts.layersProperty()).hasSize(layers);
    assertThat(facts.chartNames().cls()).isEqualTo(HeadFactsViewModel.SOURCE_FIRST);
    assertThat(facts.chartNames().sep()).isEqualTo("</s>");

    // the encoder kind: the keys are the source's too, but the first token is no longer named as the source's
    main.encoderDecoder().setKind(AttentionKind.ENCODER);
    main.select(new Head(0, 0));
    assertThat(facts.firstTokenProperty().get().cross()).isFalse();
    assertThat(facts.chartNames().cls()).isEqualTo(HeadFactsViewModel.FIRST_TOKEN_NAMES.cls());
    assertThat(main.session().measures().get(MainViewModel.END)).isNotNull();
  }
}
