#!/usr/bin/env bash
# Regenerates the demo study's video pool in api/demo/media from scratch.
#
# Every clip is synthesised with ffmpeg's lavfi sources (no external footage),
# encoded as a small WebM (VP9 + Opus, 426x240, 24 fps, keyframe every 2 s),
# and gets a 320x180 JPEG thumbnail taken from a representative frame with the
# title overlaid.  The metadata in api/demo/videos.json is hand-written; the
# durations printed at the end must match its duration_seconds values.
#
# Usage: scripts/make-demo-media.sh        (needs ffmpeg with libvpx, libopus,
#                                           drawtext and fonts-dejavu-core)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$ROOT/api/demo/media"
FFMPEG="${FFMPEG:-ffmpeg}"
FFPROBE="${FFPROBE:-ffprobe}"
FONT_DIR="${FONT_DIR:-/usr/share/fonts/truetype/dejavu}"
FONT_BOLD="$FONT_DIR/DejaVuSans-Bold.ttf"
FONT_REG="$FONT_DIR/DejaVuSans.ttf"
FONT_MONO="$FONT_DIR/DejaVuSansMono.ttf"

W=426
H=240
FPS=24
GOP=$((FPS * 2)) # keyframe at least every 2 s so seeking is smooth

for tool in "$FFMPEG" "$FFPROBE"; do
  command -v "$tool" >/dev/null || { echo "error: $tool not found" >&2; exit 1; }
done
for f in "$FONT_BOLD" "$FONT_REG" "$FONT_MONO"; do
  [[ -f "$f" ]] || { echo "error: font $f missing (apt-get install fonts-dejavu-core)" >&2; exit 1; }
done

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

# Start from scratch so the directory holds exactly what this script makes.
rm -rf "$OUT"
mkdir -p "$OUT"

# Quiet stereo chord: three partials per channel (right slightly detuned),
# slow swell, roughly -24 dBFS peak.  Args: f1 f2 f3 swell_hz
chord() {
  local a=0.018 l r
  l="$a*(sin(2*PI*$1*t)+sin(2*PI*$2*t)+0.7*sin(2*PI*$3*t))*(0.75+0.25*sin(2*PI*$4*t))"
  r="$a*(sin(2*PI*($1+0.4)*t)+sin(2*PI*($2-0.3)*t)+0.7*sin(2*PI*($3+0.5)*t))*(0.75+0.25*cos(2*PI*$4*t))"
  printf "aevalsrc=exprs='%s|%s':s=48000" "$l" "$r"
}

# make <slug> <seconds> <thumb_time> <title lines, | separated> <channel> <video graph> <audio graph>
# The video graph must end in a pad named [bg] (426x240); the audio graph in [aud].
make() {
  local slug="$1" dur="$2" thumb_t="$3" title="$4" channel="$5" vgraph="$6" agraph="$7"
  local webm="$OUT/$slug.webm" jpg="$OUT/$slug.jpg"
  local title_file="$TMP/$slug.title" chan_file="$TMP/$slug.channel" badge_file="$TMP/$slug.badge"
  printf '%s' "$title" | tr '|' '\n' >"$title_file"
  printf '%s' "$channel" >"$chan_file"
  printf '%d:%02d' $((dur / 60)) $((dur % 60)) >"$badge_file"

  local fade_out=$((dur - 2))
  local alpha="if(lt(t,4.5),1,max(0,5.5-t))"
  local overlay
  overlay="[bg]format=yuv420p,"
  overlay+="drawtext=fontfile=$FONT_BOLD:textfile=$title_file:expansion=none:fontsize=22:fontcolor=white"
  overlay+=":line_spacing=4:box=1:boxcolor=black@0.55:boxborderw=10:x=(w-text_w)/2:y=(h-text_h)/2-14"
  overlay+=":alpha='$alpha':enable='lt(t,5.5)',"
  overlay+="drawtext=fontfile=$FONT_REG:textfile=$chan_file:expansion=none:fontsize=14:fontcolor=0xf0f0f0"
  overlay+=":shadowcolor=black@0.8:shadowx=1:shadowy=1:x=(w-text_w)/2:y=h-52"
  overlay+=":alpha='$alpha':enable='lt(t,5.5)',"
  overlay+="drawtext=fontfile=$FONT_MONO:text='%{pts\\:hms}':fontsize=13:fontcolor=white"
  overlay+=":box=1:boxcolor=black@0.5:boxborderw=4:x=w-text_w-8:y=h-text_h-8[v];"
  overlay+="$agraph;[aud]afade=t=in:d=1.5,afade=t=out:st=$fade_out:d=2,asetnsamples=n=960[a]"

  "$FFMPEG" -hide_banner -loglevel error -y \
    -filter_complex "$vgraph;$overlay" -map '[v]' -map '[a]' -t "$dur" \
    -c:v libvpx-vp9 -pix_fmt yuv420p -b:v 100k -crf 40 -deadline good -cpu-used 2 -row-mt 1 \
    -g "$GOP" -keyint_min "$GOP" \
    -c:a libopus -b:a 32k -ar 48000 -ac 2 \
    -map_metadata -1 -fflags +bitexact -flags:v +bitexact -flags:a +bitexact \
    -metadata title="${title//|/ }" \
    "$webm"

  # Thumbnail: representative frame (after the title card has faded),
  # title in big type on a dark band, YouTube-style duration badge.
  "$FFMPEG" -hide_banner -loglevel error -y -ss "$thumb_t" -i "$webm" -frames:v 1 -vf \
    "crop=376:212:0:0,scale=320:180:flags=lanczos,\
drawbox=x=0:y=0:w=iw:h=ih:color=black@0.15:t=fill,\
drawtext=fontfile=$FONT_BOLD:textfile=$title_file:expansion=none:fontsize=20:fontcolor=white:line_spacing=3:\
borderw=2:bordercolor=black@0.9:box=1:boxcolor=black@0.45:boxborderw=8:x=14:y=16,\
drawtext=fontfile=$FONT_BOLD:textfile=$badge_file:expansion=none:fontsize=13:fontcolor=white:\
box=1:boxcolor=black@0.8:boxborderw=3:x=w-text_w-8:y=h-text_h-8" \
    -q:v 3 "$jpg"

  printf '%-26s %6.2f s\n' "$slug" "$("$FFPROBE" -v error -show_entries format=duration -of csv=p=0 "$webm")"
}

# ---------------------------------------------------------------------------
# The pool.  Slugs double as file names; keep in sync with api/demo/videos.json.
# ---------------------------------------------------------------------------

# 1. Warm, slowly turning oven-glow tones.
make sourdough-basics 34 9 "Sourdough Basics:|Your First Loaf|in 24 Hours" "Crumb & Crust" \
  "gradients=s=${W}x${H}:r=$FPS:n=4:c0=0xf4a259:c1=0xfff3d6:c2=0xbc4b51:c3=0xf4e285:speed=0.012:seed=11,vignette=PI/5[bg]" \
  "$(chord 196 246.94 293.66 0.1)[aud]"

# 2. Bubbling starter: creamy plasma.
make starter-revival 27 8 "Reviving a Neglected|Sourdough Starter" "Crumb & Crust" \
  "color=black:s=213x120:r=$FPS,format=gray,geq=lum='128+30*(sin(X/11+T*0.8)+sin(Y/9-T*0.6)+sin((X+Y)/15+T*0.5)+sin(hypot(X-106\,Y-60)/8-T*1.2))',scale=${W}:${H}:flags=bicubic,format=rgb24,lutrgb=r='95+val*0.62':g='62+val*0.55':b='30+val*0.38'[bg]" \
  "$(chord 174.61 220 261.63 0.08)[aud]"

# 3. Slow zoom into seahorse valley (one high-res still, rendered once, then
#    zoompan + hue drift; the animated mandelbrot source goes black when zooming).
"$FFMPEG" -hide_banner -loglevel error -y -f lavfi \
  -i "mandelbrot=s=1920x1080:start_scale=0.3:end_scale=0.3:maxiter=2048" -frames:v 1 "$TMP/mandelbrot.png"
make mandelbrot-never-ends 38 20 "Why the Mandelbrot|Set Never Ends" "Fractal Hour" \
  "movie=$TMP/mandelbrot.png,zoompan=z='pow(6\,on/($FPS*38))':x='iw/2-(iw/zoom/2)':y='ih/2-(ih/zoom/2)':d=$((FPS * 38)):s=${W}x${H}:fps=$FPS,gblur=sigma=0.6,hue=h='200+t*4':s=0.95[bg]" \
  "$(chord 130.81 196 329.63 0.05)[aud]"

# 4. Conway's Life with mould trails.
make game-of-life-explained 31 12 "Conway's Game of Life,|Explained" "Byte Sized Lab" \
  "life=s=71x40:r=5:seed=7:ratio=0.18:mold=12:life_color=0xffd166:death_color=0xef476f:mold_color=0x073b4c,fps=$FPS,scale=${W}:${H}:flags=neighbor[bg]" \
  "$(chord 220 277.18 329.63 0.12)[aud]"

# 5. Rule 110 scrolling like terminal output.
make tiny-interpreter-part1 36 14 "Writing a Tiny|Interpreter in Python|(Part 1)" "Byte Sized Lab" \
  "cellauto=s=71x40:r=4:rule=110:random_fill_ratio=0.5:random_seed=42:scroll=1:start_full=1,fps=$FPS,scale=${W}:${H}:flags=neighbor,format=rgb24,lutrgb=r='18+val*0.15':g='24+val*0.72':b='38+val*0.42'[bg]" \
  "$(chord 146.83 220 277.18 0.07)[aud]"

# 6. Azulejo blues and sunny yellows behind a tile grid.
make lisbon-48-hours 29 10 "48 Hours in Lisbon|on a Budget" "Slow Road Journals" \
  "gradients=s=${W}x${H}:r=$FPS:n=4:c0=0x0b3d91:c1=0xf2c14e:c2=0x1e88e5:c3=0xfaf3e0:speed=0.02:seed=23,drawgrid=w=36:h=36:t=1:c=white@0.3[bg]" \
  "$(chord 261.63 329.63 392 0.15)[aud]"

# 7. Night train: dusk sky, stars, rolling hills and warm lights sliding past
#    a two-pane window.
HILLS="(78+7*sin((X+T*25)/17)+4*sin((X+T*25)/6.3)+3*sin((X+T*25)/31))"
STAR="gt(mod(abs(sin(X*12.9898+Y*78.233))*43758.5453\,1)\,0.992)*lt(Y\,55)"
make night-train-vienna-venice 40 15 "Night Train from|Vienna to Venice" "Slow Road Journals" \
  "color=black:s=213x120:r=$FPS,format=rgb24,geq=\
r='if(gt(Y\,$HILLS)\,8\,min(255\,14+pow(Y/80\,2.2)*170+$STAR*200))':\
g='if(gt(Y\,$HILLS)\,10\,min(255\,18+pow(Y/80\,2.2)*70+$STAR*200))':\
b='if(gt(Y\,$HILLS)\,22\,min(255\,52+Y/2+$STAR*180))',\
scale=${W}:${H}:flags=bicubic[sky];\
color=c=0xffd27f:s=36x4:r=$FPS[l1];color=c=0xfff1c1:s=10x3:r=$FPS[l2];color=c=0xff9f43:s=70x6:r=$FPS[l3];\
[sky][l2]overlay=x='W-mod(t*40\,W+200)':y=150[s1];[s1][l1]overlay=x='W-mod(t*260+100\,W+300)':y=190[s2];\
[s2][l3]overlay=x='W-mod(t*420\,W+900)':y=214,\
drawbox=x=0:y=0:w=iw:h=ih:color=0x1a1410:t=12,drawbox=x=iw/2-6:y=0:w=12:h=ih:color=0x1a1410:t=fill[bg]" \
  "anoisesrc=color=brown:amplitude=0.06:seed=9:r=48000,lowpass=f=400,volume='0.8+0.2*sin(2*PI*1.6*t)':eval=frame,aformat=channel_layouts=stereo[aud]"

# 8. Guitar scale practice: constant-Q "piano roll" of the (audible) scale.
make guitar-scale-routine 33 11 "A Daily Scale Routine|for Guitar Players" "Fretwork Daily" \
  "gradients=s=${W}x${H}:r=$FPS:n=2:c0=0x1d2b53:c1=0x7e2553:speed=0.01:seed=3,format=rgb24[gbg];\
[vis]volume=10,showcqt=s=${W}x${H}:r=$FPS:bar_h=110:axis_h=0:sono_h=130:basefreq=170:endfreq=900:count=1:bar_g=2:sono_g=3,\
format=rgb24,lutrgb=r='val*0.55':g='val*0.95':b='val'[notes];\
[gbg][notes]blend=all_mode=screen,format=gbrp[bg]" \
  "aevalsrc=exprs='0.07*(1-exp(-80*mod(t*2\,1)))*exp(-3*mod(t*2\,1))*(1-mod(t*2\,1))*(sin(2*PI*196*pow(2\,(2*floor(mod(t*2\,8))-gte(floor(mod(t*2\,8))\,3)-gte(floor(mod(t*2\,8))\,7))/12)*t)+0.3*sin(4*PI*196*pow(2\,(2*floor(mod(t*2\,8))-gte(floor(mod(t*2\,8))\,3)-gte(floor(mod(t*2\,8))\,7))/12)*t))':s=48000,aformat=channel_layouts=stereo,asplit[aud][vis]"

# 9. Pulsing rings for a workout.
make no-equipment-workout 25 9 "No-Equipment Full Body|Workout for Beginners" "Move With Maya" \
  "color=black:s=213x120:r=$FPS,format=gray,geq=lum='128+100*sin(hypot(X-W/2\,Y-H/2)/7-T*5)*(0.65+0.35*sin(T*2*PI))',scale=${W}:${H}:flags=bicubic,format=yuv420p,pseudocolor=p=inferno[bg]" \
  "$(chord 164.81 207.65 246.94 2)[aud]"

# 10. Leafy greens.
make planting-garlic-autumn 30 12 "Planting Garlic in Autumn:|Spacing, Depth & Mulch" "Back Forty Gardens" \
  "color=black:s=213x120:r=$FPS,format=gray,geq=lum='128+28*(sin(X/7+sin(Y/13+T*0.4)*2)+sin(Y/11-T*0.3)+sin((X-Y)/17+T*0.6)+sin(hypot(X-60\,Y-90)/10-T*0.9))',scale=${W}:${H}:flags=bicubic,format=rgb24,lutrgb=r='18+val*0.42':g='55+val*0.72':b='20+val*0.26',vignette=PI/5[bg]" \
  "$(chord 233.08 293.66 349.23 0.09)[aud]"

# 11. Parchment-toned Sierpinski carpet for a history piece.
make library-of-alexandria 37 13 "The Lost Library of|Alexandria: What|Really Happened" "Footnotes of History" \
  "sierpinski=s=213x120:r=4:seed=3:jump=3:type=carpet,fps=$FPS,scale=${W}:${H}:flags=bicubic,format=gray,format=rgb24,lutrgb=r='62+val*0.7':g='42+val*0.66':b='22+val*0.55',gblur=sigma=1.5,vignette=PI/4[bg]" \
  "$(chord 110 164.81 220 0.05)[aud0];anoisesrc=color=brown:amplitude=0.02:seed=4:r=48000,lowpass=f=300,aformat=channel_layouts=stereo[aud1];[aud0][aud1]amix=inputs=2:normalize=0[aud]"

# 12. Drifting wood grain.
make fix-wobbly-chair 24 8 "Fixing a Wobbly Chair|with Wood Glue|and Clamps" "Saturday Workshop" \
  "color=black:s=213x120:r=$FPS,format=gray,geq=lum='128+60*sin((X+T*6)/3.5+5*sin(Y/21+(X+T*6)/70)+1.5*sin(Y/5))+20*sin(Y/40)',scale=${W}:${H}:flags=bicubic,format=rgb24,lutrgb=r='70+val*0.62':g='40+val*0.42':b='18+val*0.22'[bg]" \
  "$(chord 146.83 185 220 0.06)[aud]"

# 13. Side-scrolling retro level.
make speedrun-route-explained 32 10 "Speedrunning a Retro|Platformer: The Route|Explained" "Pixel Pace" \
  "color=black:s=213x120:r=$FPS,format=rgb24,geq=\
r='if(between(X\,50\,57)*between(Y\,88-abs(sin(T*3))*30\,96-abs(sin(T*3))*30)\,230\,if(gte(Y\,96)\,if(lt(Y\,100)\,70\,if(mod(floor((X+T*60)/12)+floor(Y/12)\,2)\,150\,118))\,if(between(Y\,64\,70)*lt(mod(X+T*60\,160)\,56)\,222\,if(between(Y\,20\,27)*lt(mod(X+T*15\,120)\,34)\,250\,92+Y*0.6))))':\
g='if(between(X\,50\,57)*between(Y\,88-abs(sin(T*3))*30\,96-abs(sin(T*3))*30)\,52\,if(gte(Y\,96)\,if(lt(Y\,100)\,186\,if(mod(floor((X+T*60)/12)+floor(Y/12)\,2)\,92\,70))\,if(between(Y\,64\,70)*lt(mod(X+T*60\,160)\,56)\,118\,if(between(Y\,20\,27)*lt(mod(X+T*15\,120)\,34)\,250\,160+Y*0.5))))':\
b='if(between(X\,50\,57)*between(Y\,88-abs(sin(T*3))*30\,96-abs(sin(T*3))*30)\,60\,if(gte(Y\,96)\,if(lt(Y\,100)\,70\,if(mod(floor((X+T*60)/12)+floor(Y/12)\,2)\,44\,34))\,if(between(Y\,64\,70)*lt(mod(X+T*60\,160)\,56)\,40\,if(between(Y\,20\,27)*lt(mod(X+T*15\,120)\,34)\,252\,250))))',\
scale=${W}:${H}:flags=neighbor[bg]" \
  "aevalsrc=exprs='0.012*(sgn(sin(2*PI*330*pow(2\,floor(mod(t*4\,4))*4/12)*t))*(1-mod(t*4\,1)))+0.015*sin(2*PI*110*t)':s=48000,lowpass=f=2500,aformat=channel_layouts=stereo[aud]"

# 14. Board-game night: rotating Lissajous figure drawn from the soundtrack.
make ranking-board-games 28 12 "Ranking Every Board|Game on Our Shelf" "Tabletop Tuesday" \
  "[vis]volume=12,avectorscope=s=${W}x${H}:r=$FPS:mode=lissajous_xy:draw=line:zoom=1.3:rc=160:gc=70:bc=20:rf=30:gf=30:bf=30:af=30,format=rgb24[scope];\
gradients=s=${W}x${H}:r=$FPS:n=2:c0=0x14213d:c1=0x3a0ca3:speed=0.01:seed=8,format=rgb24[sbg];\
[sbg][scope]blend=all_mode=screen,format=gbrp[bg]" \
  "aevalsrc=exprs='0.05*sin(2*PI*220*t)|0.05*sin(2*PI*330.25*t)':s=48000,asplit[aud][vis]"

echo
du -ch "$OUT"/* | tail -n 1 | sed 's/total/total size of api\/demo\/media/'
