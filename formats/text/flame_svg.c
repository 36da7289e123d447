/* SPDX-License-Identifier: MIT */
/* Flame graph SVG writer (formats.md): self-contained (no external scripts or fonts), root at
 * the bottom, box width ∝ |inclusive|, a <title> tooltip on every box, click to zoom,
 * Ctrl-F / "Search" to highlight a regular expression, Esc / "Reset Zoom" to zoom out. In a
 * diff, boxes are red where the test grew and blue where it shrank, by the size of the change.
 * The script below was written for stackview. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/export_int.h"
#include "stackview/flame.h"
#include "sv/utf8.h"

#define SVG_W 1200
#define FRAME_H 16
#define TOP 44
#define BOTTOM 28
#define PAD 10

static void xml_text(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	while (*s) {
		unsigned char c = *s;
		if (c == '&') fputs("&amp;", f);
		else if (c == '<') fputs("&lt;", f);
		else if (c == '>') fputs("&gt;", f);
		else if (c == '"') fputs("&quot;", f);
		else if (c == '\'') fputs("&apos;", f);
		else if (c < 0x20 || c == 0x7f) fputs("\xEF\xBF\xBD", f);
		else {
			int n = sv_utf8_len(s);
			if (!n || (n == 3 && s[0] == 0xEF && s[1] == 0xBF && (s[2] == 0xBE || s[2] == 0xBF))) {
				fputs("\xEF\xBF\xBD", f);
				s += n ? n : 1;
				continue;
			}
			fwrite(s, 1, (size_t)n, f);
			s += n;
			continue;
		}
		s++;
	}
}

/* FlameGraph-like warm colours, stable per name (FNV-1a of the name). */
static void warm(const char *name, int *r, int *g, int *b)
{
	unsigned h = 2166136261u;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 16777619u;
	double v1 = (h & 0xff) / 255.0, v2 = ((h >> 8) & 0xff) / 255.0, v3 = ((h >> 16) & 0xff) / 255.0;
	*r = 205 + (int)(50 * v3);
	*g = (int)(230 * v1);
	*b = (int)(55 * v2);
}

static const char script[] =
	"var svg=document.documentElement,boxes=[],W=" "1200" ",PAD=10,zoomed=null,details,matched;\n"
	"function init(){details=document.getElementById('details');matched=document.getElementById('matched');\n"
	" var gs=document.getElementsByClassName('f');for(var i=0;i<gs.length;i++){var g=gs[i];\n"
	"  boxes.push({g:g,x:+g.getAttribute('data-x'),w:+g.getAttribute('data-w'),d:+g.getAttribute('data-d'),\n"
	"   r:g.getElementsByTagName('rect')[0],t:g.getElementsByTagName('text')[0],n:g.getElementsByTagName('title')[0].textContent,\n"
	"   label:g.getAttribute('data-n')});\n"
	"  g.addEventListener('click',zoomTo.bind(null,boxes[boxes.length-1]));\n"
	"  g.addEventListener('mouseover',function(b){details.textContent=b.n;}.bind(null,boxes[boxes.length-1]));\n"
	"  g.addEventListener('mouseout',function(){details.textContent=' ';});}\n"
	" document.getElementById('unzoom').addEventListener('click',function(){zoomTo(null);});\n"
	" document.getElementById('search').addEventListener('click',search);\n"
	" window.addEventListener('keydown',function(e){if((e.ctrlKey||e.metaKey)&&e.key=='f'){e.preventDefault();search();}\n"
	"  else if(e.key=='Escape'){zoomTo(null);}});}\n"
	"function fit(b,x,w){var px=PAD+x*(W-2*PAD),pw=w*(W-2*PAD);b.r.setAttribute('x',px);b.r.setAttribute('width',Math.max(pw,0));\n"
	" b.t.setAttribute('x',px+3);var n=Math.floor((pw-6)/7);var s=b.label;\n"
	" b.t.textContent=n<3?'':(s.length<=n?s:s.substring(0,n-2)+'..');}\n"
	"function zoomTo(z){zoomed=z;var zx=z?z.x:0,zw=z?z.w:1;\n"
	" document.getElementById('unzoom').style.opacity=z?1:0;\n"
	" for(var i=0;i<boxes.length;i++){var b=boxes[i];\n"
	"  var inside=b.x>=zx-1e-12&&b.x+b.w<=zx+zw+1e-12;\n"
	"  var above=z&&b.d<z.d&&b.x<=zx+1e-12&&b.x+b.w>=zx+zw-1e-12;\n"
	"  if(!z||(inside&&b.d>=z.d)){b.g.style.display='';b.g.style.opacity=1;fit(b,(b.x-zx)/zw,b.w/zw);}\n"
	"  else if(above){b.g.style.display='';b.g.style.opacity=0.5;fit(b,0,1);}\n"
	"  else b.g.style.display='none';}}\n"
	"function search(){var term=prompt('Search (regular expression, case-insensitive):','');\n"
	" if(term===null)return;var re;try{re=new RegExp(term,'i');}catch(e){alert(e);return;}\n"
	" var total=0,ranges=[];for(var i=0;i<boxes.length;i++){var b=boxes[i],hit=term!==''&&re.test(b.label);\n"
	"  b.r.setAttribute('fill',hit?'rgb(230,0,230)':b.r.getAttribute('data-fill'));\n"
	"  if(hit){var cover=false;for(var k=0;k<ranges.length;k++)if(b.x>=ranges[k][0]&&b.x<ranges[k][1])cover=true;\n"
	"   if(!cover){ranges.push([b.x,b.x+b.w]);total+=b.w;}}}\n"
	" matched.textContent=term===''?' ':'Matched: '+(100*total).toFixed(1)+'%';}\n"
	"window.addEventListener('load',init);\n";

int sv_flame_svg_write(FILE *f, const sv_view *v, const sv_flame *fl, const char *title, const char *subtitle,
		       sv_error *err)
{
	int height = (int)(fl->max_depth + 1) * FRAME_H + TOP + BOTTOM;
	fprintf(f, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		   "<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		   "xmlns=\"http://www.w3.org/2000/svg\">\n",
		SVG_W, height, SVG_W, height);
	fputs("<style>text{font-family:Verdana,sans-serif;font-size:12px;fill:#000}"
	      "#title{font-size:17px;text-anchor:middle}#sub{font-size:12px;text-anchor:middle;fill:#555}"
	      ".f:hover rect{stroke:#000;stroke-width:0.5}.f text{pointer-events:none}"
	      "#search,#unzoom{cursor:pointer}</style>\n<script type=\"text/ecmascript\"><![CDATA[\n",
	      f);
	fputs(script, f);
	fputs("]]></script>\n", f);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n", SVG_W, height,
		fl->diff ? "#f8f8f8" : "#fff8e8");
	fprintf(f, "<text id=\"title\" x=\"%d\" y=\"20\">", SVG_W / 2);
	xml_text(f, title);
	fprintf(f, "</text>\n<text id=\"sub\" x=\"%d\" y=\"36\">", SVG_W / 2);
	xml_text(f, subtitle);
	fprintf(f, "</text>\n<text id=\"unzoom\" x=\"%d\" y=\"20\" style=\"opacity:0\">Reset Zoom</text>\n", PAD);
	fprintf(f, "<text id=\"search\" x=\"%d\" y=\"20\" text-anchor=\"end\">Search</text>\n", SVG_W - PAD);
	fprintf(f, "<text id=\"matched\" x=\"%d\" y=\"%d\" text-anchor=\"end\"> </text>\n", SVG_W - PAD, height - 8);
	fprintf(f, "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n", PAD, height - 8);
	double maxdelta = 0;
	for (size_t i = 0; i < fl->n; i++)
		if (fabs(fl->box[i].inc) > maxdelta && fl->box[i].depth > 0)
			maxdelta = fabs(fl->box[i].inc);
	for (size_t i = 0; i < fl->n && !ferror(f); i++) { /* a failed write (or a held signal) stops */
		const sv_flame_box *b = &fl->box[i];
		const char *name = sv_view_name(v, b->name);
		double px = PAD + b->x * (SVG_W - 2 * PAD), pw = b->w * (SVG_W - 2 * PAD);
		int y = height - BOTTOM - (int)(b->depth + 1) * FRAME_H;
		int r, g, bl;
		if (fl->diff) {
			/* red grew, blue shrank, white unchanged; intensity by |delta| / max |delta| */
			double k = maxdelta > 0 ? fabs(b->inc) / maxdelta : 0;
			int fade = 255 - (int)(210 * k);
			if (b->inc > 0)
				r = 255, g = fade, bl = fade;
			else if (b->inc < 0)
				r = fade, g = fade, bl = 255;
			else
				r = g = bl = 250;
		} else {
			warm(name, &r, &g, &bl);
		}
		double pct = fl->total > 0 ? 100.0 * (fl->diff ? b->pos : fabs(b->inc)) / fl->total : 0;
		fprintf(f, "<g class=\"f\" data-x=\"%.9g\" data-w=\"%.9g\" data-d=\"%u\" data-n=\"", b->x, b->w, b->depth);
		xml_text(f, name);
		fputs("\"><title>", f);
		xml_text(f, name);
		char num[64];
		sv_format_number(num, sizeof(num), b->inc, 1);
		if (fl->diff) {
			char p1[64], p2[64];
			sv_format_number(p1, sizeof(p1), b->pos, 1);
			sv_format_number(p2, sizeof(p2), b->neg, 1);
			fprintf(f, " (test %s, base %s, delta %s%s)", p1, p2, b->inc > 0 ? "+" : "", num);
		} else {
			fprintf(f, " (%s, %.2f%%)", num, pct);
		}
		fprintf(f, "</title><rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" rx=\"2\" ry=\"2\" "
			   "fill=\"rgb(%d,%d,%d)\" data-fill=\"rgb(%d,%d,%d)\"/><text x=\"%.1f\" y=\"%d\">",
			px, y, pw, FRAME_H - 1, r, g, bl, r, g, bl, px + 3, y + FRAME_H - 4);
		/* The label as much as fits (the script recomputes it when zooming). */
		int fits = (int)((pw - 6) / 7);
		if (fits >= 3) {
			size_t len = strlen(name);
			if ((int)len <= fits) {
				xml_text(f, name);
			} else {
				char cut[1024];
				size_t k = 0, chars = 0;
				while (name[k] && chars < (size_t)(fits - 2) && k < sizeof(cut) - 4) {
					int n = sv_utf8_len((const unsigned char *)name + k);
					k += n ? (size_t)n : 1;
					chars++;
				}
				snprintf(cut, sizeof(cut), "%.*s..", (int)k, name);
				xml_text(f, cut);
			}
		}
		fputs("</text></g>\n", f);
	}
	fputs("</svg>\n", f);
	return ferror(f) ? sv_error_set(err, SV_EIO, "writing failed") : 0;
}

/* As an exporter (convert ... out.svg): the source's own tree with empty boxes. */
int sv_fmt_svg_export(FILE *f, const sv_source *src, const sv_export_opts *opts, sv_error *err)
{
	(void)opts;
	sv_params p;
	sv_view *v = NULL;
	sv_flame *fl = NULL;
	int rc = sv_params_init(&p);
	if (!rc)
		rc = sv_view_new(&v, src, &p, err);
	if (!rc)
		rc = sv_flame_new(&fl, v, SV_NODE_ROOT, 0.1 / (SVG_W - 2 * PAD));
	if (!rc)
		rc = sv_flame_svg_write(f, v, fl, "Flame Graph", sv_source_format(src), err);
	else if (rc == SV_ENOMEM)
		sv_error_set(err, rc, NULL);
	sv_flame_free(fl);
	sv_view_free(v);
	sv_params_dispose(&p);
	return rc;
}

static const char *const svg_patterns[] = { ".svg", NULL };

const sv_format sv_fmt_svg = { .name = "flamegraph-svg", .patterns = svg_patterns, .export = sv_fmt_svg_export };

