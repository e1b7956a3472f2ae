"""The font files the map pictures are drawn with, and nothing else: DejaVu Sans for Latin
words, Noto Sans CJK for Chinese (Debian's fonts-dejavu-core and fonts-noto-cjk). System fonts
are never searched, so the same drawing gives the same pixels on every machine with these
packages. Read by the word drawer (:mod:`pbem.render.rastertext`), resvg's drawings
(:mod:`pbem.render.rastersvg`) and the key of the pictures kept on disk
(:mod:`pbem.render.rasterstore`)."""

LATIN = ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf")
CJK = ("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", "/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc")
CJK_FACE = 3  # Noto Sans CJK TC in the collections (JP, KR, SC, TC, HK...)
